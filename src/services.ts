// Wires the domain services over one database connection. Both the HTTP app and the CLI use it.
import { MemoryCache } from './cache/cache.js';
import type { Cache } from './cache/cache.js';
import type { Config } from './config.js';
import { createChangeFeed } from './db/change-feed.js';
import type { ChangeFeed } from './db/change-feed.js';
import { migrate, openDatabase } from './db/database.js';
import type { DatabaseHandle, OpenOptions } from './db/database.js';
import { systemClock } from './domain/clock.js';
import type { Clock } from './domain/clock.js';
import { WebsiteBindings } from './domain/bindings.js';
import { PostsService } from './domain/posts.js';
import { SettingsService } from './domain/settings.js';
import { TranslationsService } from './domain/translations.js';
import { NpmPackageManager } from './domain/npm.js';
import { UpdateService } from './domain/updates.js';
import type { PackageManager } from './domain/updates.js';
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
  /** Core and package updates with their cross-node lock (spec 4.6). */
  updates: UpdateService;
  /** Closes the change feed and the database; call once, after the HTTP server has stopped. */
  close(): Promise<void>;
}

export interface ServiceOptions extends OpenOptions {
  clock?: Clock;
  /** Where the services report trouble that is not tied to a request (the change feed). */
  warn?: (message: string) => void;
  /** Where updates run npm and publish assets: the directory holding package.json (default: cwd). */
  installDir?: string;
  /** Replaces npm for updates (tests). */
  packageManager?: PackageManager;
}

export function createServices(config: Config, options: ServiceOptions = {}): Services {
  const database = openDatabase(config.database, options);
  const clock = options.clock ?? systemClock;
  const feed = createChangeFeed(database, options.warn ?? ((message) => console.warn(message)));
  const { db } = database;
  const cache = new MemoryCache();
  const settings = new SettingsService(db, feed, clock);
  const updates = new UpdateService({
    db,
    clock,
    cache,
    settings,
    migrate: () => migrate(database),
    packageManager:
      options.packageManager ?? new NpmPackageManager({ installDir: options.installDir ?? process.cwd() }),
  });
  return {
    config,
    database,
    clock,
    feed,
    cache,
    settings,
    translations: new TranslationsService(db),
    bindings: new WebsiteBindings(db),
    users: new UsersService(db, clock),
    posts: new PostsService(db, clock),
    websites: new WebsitesService(db, clock),
    updates,
    async close() {
      await updates.releaseAll();
      await cache.close();
      await feed.close();
      await database.close();
    },
  };
}
