// Websites and their domains. Each website has one primary domain and any number of aliases, all in
// the `domains` table, whose unique index keeps a domain on one website even under concurrent writes.
import { domainToASCII } from 'node:url';
import type { Db } from '../db/database.js';
import { nowIso } from './clock.js';
import type { Clock } from './clock.js';

export interface NewWebsite {
  siteName: string;
  domain: string;
  userId?: number | null;
  theme?: string;
}

export class WebsitesService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Creates a website with its primary domain in one transaction; returns its id. */
  async create(input: NewWebsite): Promise<number> {
    const now = nowIso(this.clock);
    return this.db.transaction().execute(async (trx) => {
      const website = await trx
        .insertInto('websites')
        .values({
          site_name: input.siteName,
          user_id: input.userId ?? null,
          theme: input.theme ?? 'default',
          enabled_page_cache: false,
          enabled_data_cache: true,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('domains')
        .values({
          website_id: website.id,
          domain: input.domain,
          is_primary: true,
          created_at: now,
          updated_at: now,
        })
        .execute();
      return website.id;
    });
  }

  /** The website that a domain (primary or alias) belongs to; the domain is normalized first. */
  async findIdByDomain(domain: string): Promise<number | null> {
    const normalized = normalizeDomain(domain);
    if (normalized === null) return null;
    const row = await this.db
      .selectFrom('domains')
      .select('website_id')
      .where('domain', '=', normalized)
      .executeTakeFirst();
    return row?.website_id ?? null;
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('websites')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}

/**
 * A domain as Folio stores it (R-W3): the lower-case host only — scheme, user info, port, path and a
 * trailing dot dropped, internationalized names as punycode. Null when nothing usable is left.
 */
export function normalizeDomain(input: string): string | null {
  let host = input.trim().toLowerCase();
  host = host.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  host = host.split(/[/?#]/, 1)[0] ?? '';
  host = host.slice(host.lastIndexOf('@') + 1);
  if (host.startsWith('[')) return null; // IPv6 literals are not website domains
  host = host.replace(/:\d*$/, '').replace(/\.+$/, '');
  if (host === '') return null;
  const ascii = domainToASCII(host);
  if (ascii === '' || ascii.length > 253) return null;
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
  return ascii.split('.').every((part) => label.test(part)) ? ascii : null;
}
