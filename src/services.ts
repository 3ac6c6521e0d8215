// Wires the domain services over one database connection. Both the HTTP app and the CLI use it.
import { MemoryCache } from './cache/cache.js';
import type { Cache } from './cache/cache.js';
import type { Config } from './config.js';
import { createChangeFeed } from './db/change-feed.js';
import type { ChangeFeed } from './db/change-feed.js';
import { openDatabase } from './db/database.js';
import type { DatabaseHandle, OpenOptions } from './db/database.js';
import { systemClock } from './domain/clock.js';
import type { Clock } from './domain/clock.js';
import { WebsiteBindings } from './domain/bindings.js';
import { MenusService } from './domain/menus.js';
import { PagesService } from './domain/pages.js';
import { PostsService } from './domain/posts.js';
import { SettingsService } from './domain/settings.js';
import { TagsService } from './domain/tags.js';
import { TranslationsService } from './domain/translations.js';
import { UsersService } from './domain/users.js';
import { WebsitesService } from './domain/websites.js';

export interface Services {
  config: Config;
  database: DatabaseHandle;
  clock: Clock;
  feed: ChangeFeed;
  /** Shared cache (in-process today; Redis when REDIS_URL is set, issue 5). */
  cache: Cache;
  settings: SettingsService;
  translations: TranslationsService;
  bindings: WebsiteBindings;
  users: UsersService;
  posts: PostsService;
  websites: WebsitesService;
  tags: TagsService;
  pages: PagesService;
  menus: MenusService;
  /** Closes the change feed and the database; call once, after the HTTP server has stopped. */
  close(): Promise<void>;
}

export interface ServiceOptions extends OpenOptions {
  clock?: Clock;
  /** Where the services report trouble that is not tied to a request (the change feed). */
  warn?: (message: string) => void;
}

export function createServices(config: Config, options: ServiceOptions = {}): Services {
  const database = openDatabase(config.database, options);
  const clock = options.clock ?? systemClock;
  const feed = createChangeFeed(database, options.warn ?? ((message) => console.warn(message)));
  const { db } = database;
  const cache = new MemoryCache();
  // Tags, pages and menus (issue 4); TranslationsService and WebsiteBindings hold no state.
  const pages = new PagesService(db, clock, new TranslationsService(db), new WebsiteBindings(db));
  return {
    config,
    database,
    clock,
    feed,
    cache,
    settings: new SettingsService(db, feed, clock),
    translations: new TranslationsService(db),
    bindings: new WebsiteBindings(db),
    users: new UsersService(db, clock),
    posts: new PostsService(db, clock),
    websites: new WebsitesService(db, clock),
    tags: new TagsService(db, clock, new TranslationsService(db), new WebsiteBindings(db)),
    pages,
    menus: new MenusService(db, clock, cache, pages),
    async close() {
      await cache.close();
      await feed.close();
      await database.close();
    },
  };
}
