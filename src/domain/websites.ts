// Websites and their domains. Each website has one primary domain and any number of aliases, all in
// the `domains` table, whose unique index keeps a domain on one website even under concurrent writes.
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

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('websites')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
