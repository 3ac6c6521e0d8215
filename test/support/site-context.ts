// The setup most HTTP tests share (issue 35 #6): an installed Folio with one website, an administrator,
// users holding roles on the website, and an API v2 caller on the website's Host. Options add what a
// test needs beyond it; everything else stays the test's own.
import type { SiteRole } from '../../src/domain/people/memberships.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from './harness.js';
import type { ContextOptions, TestContext, TestUser } from './harness.js';
import { websiteWrites } from './website-writes.js';

export interface SiteContextOptions extends ContextOptions {
  /** The website's domain (default `site.test`). */
  domain?: string;
  /** Turn on API v1's switches (API v2 needs none). */
  apiV1?: boolean;
  /** Users to make, by name, with their role on the website. */
  roles?: Record<string, SiteRole>;
}

export interface V2CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The caller (a Bearer token); null: no credential. */
  as?: TestUser | null;
  body?: unknown;
  headers?: Record<string, string>;
  host?: string;
}

export interface SiteContext {
  ctx: TestContext;
  site: number;
  domain: string;
  admin: TestUser;
  /** The users of `options.roles`, by name. */
  users: Record<string, TestUser>;
  /** An API v2 request on the website's Host, as `defaultCaller` unless `as` says otherwise. */
  v2: (url: string, options?: V2CallOptions) => ReturnType<TestContext['request']>;
  /** The same, with another default caller. */
  v2As: (
    defaultCaller: TestUser,
  ) => (url: string, options?: V2CallOptions) => ReturnType<TestContext['request']>;
}

export async function createSiteContext(options: SiteContextOptions = {}): Promise<SiteContext> {
  const { domain = 'site.test', apiV1 = false, roles = {}, ...contextOptions } = options;
  const ctx = await createTestContext(contextOptions);
  await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
  if (apiV1) await ctx.enableApi();
  const site = await websiteWrites(ctx.services).create({ siteName: 'Site', domain });
  const admin = await ctx.createUser({ admin: true });
  const users: Record<string, TestUser> = {};
  for (const [name, role] of Object.entries(roles)) {
    users[name] = await ctx.createUser();
    await ctx.services.memberships.grant(users[name].id, site, role);
  }
  const v2As =
    (defaultCaller: TestUser) =>
    (
      url: string,
      { method = 'GET', as = defaultCaller, body, headers = {}, host = domain }: V2CallOptions = {},
    ) =>
      ctx.request({
        method,
        url: `/api/v2${url}`,
        headers: { host, ...(as ? { authorization: `Bearer ${as.token}` } : {}), ...headers },
        ...(body === undefined ? {} : { payload: body as Parameters<TestContext['request']>[0]['payload'] }),
      });
  return { ctx, site, domain, admin, users, v2: v2As(admin), v2As };
}
