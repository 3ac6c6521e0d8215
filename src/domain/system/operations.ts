// The installation's switches as operations for the management faces (API v2): settings (the API's
// switches included), flushing the caches (a website's, or all), core updates. Administrators; a site
// admin may flush their own website's pages. Secrets among the settings are never shown or set here.
import { z } from 'zod';
import type { OperationRunner } from '../run.js';
import type { Cache } from '../../cache/cache.js';
import {
  AUTH_MODES,
  AUTH_ONLY_ENDPOINTS,
  ENDPOINT_SWITCHES,
  GLOBAL_SWITCH,
  authModeSetting,
  hasAuthMode,
} from './api-switches.js';
import type { AuthMode } from './api-switches.js';
import { REGISTRATION_ROLE_SETTING, REGISTRATION_ROLES } from '../people/accounts.js';
import { recordWrite } from './audit.js';
import type { AuditLog } from './audit.js';
import { pageTags } from '../cache-tags.js';
import type { ContentChanges } from '../changes.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import type { Mailer } from './mailer.js';
import type { Actor, Policy } from '../policy.js';
import { parse } from '../schema-fields.js';
import type { SettingsService } from './settings.js';
import type { UpdateLogger, UpdateService } from './updates.js';
import type { UsersService } from '../people/users.js';
import { parseBoolean } from '../values.js';
import { mailLocale, mailOf } from './mail-texts.js';

/** An API endpoint's switch and auth mode, as the settings hold them (spec section 5). */
export interface ApiSwitch {
  /** The spec's name of the switch (or, for an endpoint without one, of its auth mode prefix). */
  key: string;
  /** On or off; null when the endpoint has no switch of its own. */
  enabled: boolean | null;
  /** `<key>_should_auth`; null for a switch that has no auth mode (a group switch). */
  authMode: AuthMode | null;
}

/** What sending a test mail did. */
export interface TestMail {
  to: string;
  /** `smtp` (SMTP_URL set) or `log` (written to the log). */
  transport: 'smtp' | 'log';
  sent: boolean;
  error: string | null;
}

/** Settings no face shows or changes: the installation's signing secret and anything like it. */
const SECRET_SETTING = /secret|password|token|smtp/i;
const oneSettingInput = z
  .object({ key: z.string().trim().min(1).max(191), value: z.string().max(65_535) })
  .strict();
const KEY = /^[a-z][a-z0-9_.-]{0,190}$/;

/** A core or package update (spec 4.6): what to update, and to which version (default: the latest). */
export const updateRequestInput = z.object({
  package: z.string().max(214).optional().describe('Default: the core (`folio`).'),
  version: z.string().max(64).optional(),
});

/** A cache flush: one website's pages and data, or (administrators) everything. */
export const cacheFlushInput = z.object({
  website_id: z.int().min(1).optional().describe('Only this website\u2019s pages and data.'),
});

export const settingsInput = z
  .record(
    z.string().regex(KEY, 'The :attribute key is invalid.'),
    z.union([z.string().max(65_535), z.null()]),
  )
  .refine((entries) => Object.keys(entries).length <= 100, 'At most 100 settings at a time.');

/**
 * Settings whose values are a closed list: another value is refused (422) instead of stored and then
 * ignored (issue 34 #20: "superuser" was saved as the role of a new registration).
 */
export const SETTING_CHOICES: Readonly<Record<string, readonly string[]>> = {
  [REGISTRATION_ROLE_SETTING]: REGISTRATION_ROLES,
};

export class SystemOperations {
  constructor(
    private readonly deps: {
      /** Every write runs as one operation (run.ts). */
      runner: OperationRunner;
      settings: SettingsService;
      cache: Cache;
      policy: Policy;
      audit?: AuditLog;
      changes?: ContentChanges;
      users?: UsersService;
      mailer?: () => Mailer;
      /** Whether SMTP is configured (else the mailer writes to the log). */
      smtp?: boolean;
      /** The value in effect of a setting that is not set (what the code reading it falls back to). */
      defaults?: Readonly<Record<string, string>>;
      /** The update service in use (read when asked: tests give the services another one). */
      updates?: () => UpdateService;
    },
  ) {}

  /**
   * Runs a core or package update (spec 4.6): administrators with an unlimited key that writes. The
   * outcome is the update service's (disabled, invalid, busy, failed, updated).
   */
  async triggerUpdate(actor: Actor, input: { package?: unknown; version?: unknown }, log?: UpdateLogger) {
    if (!(await this.deps.policy.can(actor, 'installation.manage', {}))) throw new ForbiddenError();
    return this.requireUpdates().trigger(input, log, actor);
  }

  /** Whether an update of `item` runs (administrators: the installation's state). */
  async updateRunning(actor: Actor, item: string): Promise<boolean> {
    if (!(await this.deps.policy.can(actor, 'installation.read', {}))) throw new ForbiddenError();
    return (await this.requireUpdates().progress(item)) === 1;
  }

  /**
   * The progress of an update of `item` (spec 4.6, R-U3): 1 while it runs, else 0. The endpoint's auth
   * mode (a setting) decides who may ask, as the spec wants; the answer tells nothing else.
   */
  async updateProgress(item: string): Promise<number> {
    return this.requireUpdates().progress(item);
  }

  /** Whether this node began stopping (an update restarts it): a face closes its connections. */
  get stopping(): boolean {
    return this.deps.updates?.().isStopping ?? false;
  }

  private requireUpdates(): UpdateService {
    const updates = this.deps.updates?.();
    if (!updates) throw new Error('no update service configured');
    return updates;
  }

  /** Every API switch and auth mode with its value (administrators). */
  async apiSwitches(actor: Actor): Promise<ApiSwitch[]> {
    if (!(await this.deps.policy.can(actor, 'installation.read', {}))) throw new ForbiddenError();
    const all = await this.deps.settings.all();
    const modeOf = (key: string): AuthMode => {
      const value = all.get(authModeSetting(key))?.trim().toLowerCase();
      return AUTH_MODES.includes(value as AuthMode) ? (value as AuthMode) : 'simple';
    };
    return [
      { key: GLOBAL_SWITCH, enabled: parseBoolean(all.get(GLOBAL_SWITCH)) ?? true, authMode: null },
      ...ENDPOINT_SWITCHES.map((key) => ({
        key,
        enabled: parseBoolean(all.get(key)) ?? false,
        authMode: hasAuthMode(key) ? modeOf(key) : null,
      })),
      ...AUTH_ONLY_ENDPOINTS.map((key) => ({ key, enabled: null, authMode: modeOf(key) })),
    ];
  }

  /** Sends a test mail to the signed-in administrator's address through the mailer. Audited. */
  async sendTestMail(actor: Actor): Promise<TestMail> {
    if (!(await this.deps.policy.can(actor, 'account.manage', {})) || actor.userId === null)
      throw new ForbiddenError();
    const user = await this.deps.users?.findById(actor.userId);
    if (!user || !this.deps.mailer) throw new NotFoundError('User not found');
    const transport = this.deps.smtp ? 'smtp' : 'log';
    let error: string | null = null;
    try {
      await this.deps.mailer().send({
        to: user.email,
        // In the administrator's chosen language (English until they choose).
        ...mailOf(mailLocale(user.locale), 'test', { name: user.name }),
      });
    } catch (failure) {
      error = (failure as Error).message;
    }
    await recordWrite(this.deps.audit, actor, {
      action: 'mail.test',
      resourceType: 'mail',
      resourceId: user.id,
      websiteIds: [],
    });
    return { to: user.email, transport, sent: error === null, error };
  }

  /** Every setting but the secrets (administrators). */
  async settings(actor: Actor): Promise<Record<string, string>> {
    if (!(await this.deps.policy.can(actor, 'installation.read', {}))) throw new ForbiddenError();
    const all = await this.deps.settings.all();
    return Object.fromEntries([...all].filter(([key]) => !SECRET_SETTING.test(key)).sort());
  }

  /** The value in effect of each setting that has a default, when it is not set (administrators). */
  async settingDefaults(actor: Actor): Promise<Record<string, string>> {
    if (!(await this.deps.policy.can(actor, 'installation.read', {}))) throw new ForbiddenError();
    return { ...(this.deps.defaults ?? {}) };
  }

  /** Sets settings (`null` removes one); secrets are refused (administrators). */
  /**
   * Sets one setting to a value (the CLI's `setting:set`): any key, secrets included, for the
   * installation's operator; for administrators, the keys the API lets them set.
   */
  async setSetting(actor: Actor, raw: unknown): Promise<void> {
    const { key, value } = parse(oneSettingInput, raw);
    if (!(await this.deps.policy.can(actor, 'installation.operate', {}))) {
      await this.setSettings(actor, { [key]: value });
      return;
    }
    return this.deps.runner.run(async () => {
      const stored = SETTING_CHOICES[key] ? value.trim().toLowerCase() : value;
      if (SETTING_CHOICES[key] && !SETTING_CHOICES[key].includes(stored)) {
        throw new ValidationError({
          [key]: [`The selected ${key} is invalid. Choices: ${SETTING_CHOICES[key].join(', ')}.`],
        });
      }
      await this.deps.settings.set(key, stored);
      await this.deps.changes?.announce({ kind: 'settings', keys: [key] });
      await recordWrite(this.deps.audit, actor, {
        action: 'setting.set',
        resourceType: 'setting',
        resourceId: key.slice(0, 64),
        websiteIds: [],
        input: { [key]: true },
      });
    });
  }

  async setSettings(actor: Actor, raw: unknown): Promise<Record<string, string>> {
    return this.deps.runner.run(async () => {
      if (!(await this.deps.policy.can(actor, 'installation.manage', {}))) throw new ForbiddenError();
      const entries = parse(settingsInput, raw);
      const secrets = Object.keys(entries).filter((key) => SECRET_SETTING.test(key));
      if (secrets.length > 0) {
        throw new ValidationError(
          Object.fromEntries(secrets.map((key) => [key, ['This setting is not changed through the API.']])),
        );
      }
      // A choice is stored as its name (trimmed, lower case), as the code that reads it compares.
      for (const [key, value] of Object.entries(entries)) {
        if (value !== null && SETTING_CHOICES[key]) entries[key] = value.trim().toLowerCase();
      }
      const refused = Object.entries(entries).filter(
        ([key, value]) => value !== null && SETTING_CHOICES[key] && !SETTING_CHOICES[key].includes(value),
      );
      if (refused.length > 0) {
        throw new ValidationError(
          Object.fromEntries(
            refused.map(([key]) => [
              key,
              [`The selected ${key} is invalid. Choices: ${SETTING_CHOICES[key]!.join(', ')}.`],
            ]),
          ),
        );
      }
      const values: Record<string, string> = {};
      for (const [key, value] of Object.entries(entries)) {
        if (value === null) await this.deps.settings.delete(key);
        else values[key] = value;
      }
      if (Object.keys(values).length > 0) await this.deps.settings.setMany(values);
      // Locales, tag types, the page TTL… change pages: the cache listener flushes them (cache-tags.ts).
      await this.deps.changes?.announce({ kind: 'settings', keys: Object.keys(entries) });
      await recordWrite(this.deps.audit, actor, {
        action: 'setting.set',
        resourceType: 'setting',
        resourceId: Object.keys(entries).join(',').slice(0, 64),
        websiteIds: [],
        input: entries,
      });
      return this.settings(actor);
    });
  }

  /**
   * Flushes what is cached: a website's pages and data (its administrators and site admins), or
   * everything (administrators).
   */
  async flushCache(actor: Actor, websiteId?: number): Promise<void> {
    if (websiteId === undefined) {
      if (!(await this.deps.policy.can(actor, 'installation.manage', {}))) throw new ForbiddenError();
      await this.deps.cache.clear();
    } else {
      if (!(await this.deps.policy.can(actor, 'website.manage', { websiteId }))) throw new ForbiddenError();
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
