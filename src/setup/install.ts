// The first start on an empty database: a website for `localhost`, an admin user with a token, and
// the API with every endpoint switched on under token authentication, so the printed token works.
import { randomBytes } from 'node:crypto';
import type { Services } from '../services.js';
import { INSTALLED_SETTING } from '../domain/settings.js';
import { ENDPOINT_SWITCHES, GLOBAL_SWITCH } from '../domain/api-switches.js';
import { installSampleContent } from './sample-content.js';

export interface Installation {
  email: string;
  password: string;
  apiToken: string;
  websiteId: number;
}

/** Installs Folio if it is not installed yet; returns the admin's credentials, shown once. */
export async function installIfNeeded(services: Services): Promise<Installation | null> {
  if ((await services.settings.get(INSTALLED_SETTING)) !== undefined) return null;
  if ((await services.users.count()) > 0) {
    // Users exist (created with the CLI before the first start): mark installed, change nothing.
    await services.settings.set(INSTALLED_SETTING, services.clock.now().toISOString());
    return null;
  }

  const email = 'admin@localhost';
  const password = randomBytes(12).toString('base64url');
  const admin = await services.users.create({
    name: 'Admin',
    email,
    password,
    isAdmin: true,
    username: 'admin',
  });
  const apiToken = await services.users.issueToken(admin.id);
  const websiteId = await services.websites.create({
    siteName: 'Folio',
    domain: 'localhost',
    userId: admin.id,
  });
  // The address the server listens on by default answers too (a new user opens the URL the log prints).
  // IPv6 literals are not website domains (normalizeDomain), so [::1] reaches the site only through
  // `default_website_id`. The alias can be removed like any other.
  await services.websites.addDomain(websiteId, '127.0.0.1');

  const switches: Record<string, string> = { [GLOBAL_SWITCH]: '1' };
  for (const key of ENDPOINT_SWITCHES) {
    switches[key] = '1';
    if (key.startsWith('svc_api_')) switches[`${key}_should_auth`] = 'simple';
  }
  await services.settings.setMany(switches);
  // Sample posts, tags, a page and a menu (issue 7), before the site counts as installed.
  await installSampleContent(services, admin.id, websiteId);
  await services.settings.set(INSTALLED_SETTING, services.clock.now().toISOString());
  return { email, password, apiToken, websiteId };
}
