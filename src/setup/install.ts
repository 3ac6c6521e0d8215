// The first start on an empty database: a website for `localhost`, an admin user with a token, and
// the API with every endpoint switched on under token authentication, so the printed token works.
// Install is a face like the CLI: everything it writes goes through the operations, as the
// installation's operator, and is audited as theirs.
import { randomBytes } from 'node:crypto';
import type { FaceServices } from '../services.js';
import { INSTALLATION_OPERATOR } from '../domain/policy.js';
import { INSTALLED_SETTING } from '../domain/system/settings.js';
import { ENDPOINT_SWITCHES, GLOBAL_SWITCH } from '../domain/system/api-switches.js';
import { installSampleContent } from './sample-content.js';

export interface Installation {
  email: string;
  password: string;
  apiToken: string;
  websiteId: number;
}

/** Installs Folio if it is not installed yet; returns the admin's credentials, shown once. */
export async function installIfNeeded(services: FaceServices): Promise<Installation | null> {
  if ((await services.settings.get(INSTALLED_SETTING)) !== undefined) return null;
  const operator = INSTALLATION_OPERATOR;
  const markInstalled = () =>
    services.systemOps.setSetting(operator, {
      key: INSTALLED_SETTING,
      value: services.clock.now().toISOString(),
    });
  const { total: accounts } = await services.userOps.list(operator, { page: 1, perPage: 1 });
  if (accounts > 0) {
    // Users exist (created with the CLI before the first start): mark installed, change nothing.
    await markInstalled();
    return null;
  }

  const email = 'admin@localhost';
  const password = randomBytes(12).toString('base64url');
  const { user: admin, token: apiToken } = await services.userOps.create(operator, {
    name: 'Admin',
    email,
    password,
    admin: true,
    username: 'admin',
  });
  const { id: websiteId } = await services.websiteOps.create(operator, {
    siteName: 'Folio',
    domain: 'localhost',
    userId: admin.id,
  });
  // The address the server listens on by default answers too (a new user opens the URL the log prints).
  // IPv6 literals are not website domains (normalizeDomain), so [::1] reaches the site only through
  // `default_website_id`. The alias can be removed like any other.
  await services.websiteOps.addDomain(operator, websiteId, '127.0.0.1');

  const switches: Record<string, string> = { [GLOBAL_SWITCH]: '1' };
  for (const key of ENDPOINT_SWITCHES) {
    switches[key] = '1';
    if (key.startsWith('svc_api_')) switches[`${key}_should_auth`] = 'simple';
  }
  await services.systemOps.setSettings(operator, switches);
  // Sample posts, tags, a page and a menu (issue 7), before the site counts as installed.
  await installSampleContent(services, admin.id, websiteId);
  await markInstalled();
  return { email, password, apiToken, websiteId };
}
