// The installation's switches as operations for the management faces (API v2): settings (the API's
// switches included), flushing the caches (a website's, or all), core updates. Administrators; a site
// admin may flush their own website's pages. Secrets among the settings are never shown or set here.
import { z } from 'zod';
import type { Cache } from '../cache/cache.js';
import { recordWrite } from './audit.js';
import type { AuditLog } from './audit.js';
import { pageTags } from './cache-tags.js';
import { ForbiddenError, ValidationError } from './errors.js';
import type { Actor, Policy } from './policy.js';
import { parse } from './schema-fields.js';
import type { SettingsService } from './settings.js';

/** Settings no face shows or changes: the installation's signing secret and anything like it. */
const SECRET_SETTING = /secret|password|token|smtp/i;
const KEY = /^[a-z][a-z0-9_.-]{0,190}$/;

export const settingsInput = z
  .record(
    z.string().regex(KEY, 'The :attribute key is invalid.'),
    z.union([z.string().max(65_535), z.null()]),
  )
  .refine((entries) => Object.keys(entries).length <= 100, 'At most 100 settings at a time.');

export class SystemOperations {
  constructor(
    private readonly deps: {
      settings: SettingsService;
      cache: Cache;
      policy: Policy;
      audit?: AuditLog;
    },
  ) {}

  /** Every setting but the secrets (administrators). */
  async settings(actor: Actor): Promise<Record<string, string>> {
    if (!actor.isAdmin) throw new ForbiddenError();
    const all = await this.deps.settings.all();
    return Object.fromEntries([...all].filter(([key]) => !SECRET_SETTING.test(key)).sort());
  }

  /** Sets settings (`null` removes one); secrets are refused (administrators). */
  async setSettings(actor: Actor, raw: unknown): Promise<Record<string, string>> {
    if (!actor.isAdmin) throw new ForbiddenError();
    const entries = parse(settingsInput, raw);
    const secrets = Object.keys(entries).filter((key) => SECRET_SETTING.test(key));
    if (secrets.length > 0) {
      throw new ValidationError(
        Object.fromEntries(secrets.map((key) => [key, ['This setting is not changed through the API.']])),
      );
    }
    const values: Record<string, string> = {};
    for (const [key, value] of Object.entries(entries)) {
      if (value === null) await this.deps.settings.delete(key);
      else values[key] = value;
    }
    if (Object.keys(values).length > 0) await this.deps.settings.setMany(values);
    await recordWrite(this.deps.audit, actor, {
      action: 'setting.set',
      resourceType: 'setting',
      resourceId: Object.keys(entries).join(',').slice(0, 64),
      websiteIds: [],
      input: entries,
    });
    return this.settings(actor);
  }

  /**
   * Flushes what is cached: a website's pages and data (its administrators and site admins), or
   * everything (administrators).
   */
  async flushCache(actor: Actor, websiteId?: number): Promise<void> {
    if (websiteId === undefined) {
      if (!actor.isAdmin) throw new ForbiddenError();
      await this.deps.cache.clear();
    } else {
      if (!(await this.deps.policy.managesWebsite(actor, websiteId))) throw new ForbiddenError();
      await this.deps.cache.flushTags([pageTags.site(websiteId)]);
    }
    await recordWrite(this.deps.audit, actor, {
      action: 'cache.flush',
      resourceType: 'cache',
      resourceId: websiteId ?? 'all',
      websiteIds: websiteId === undefined ? [] : [websiteId],
    });
  }
}
