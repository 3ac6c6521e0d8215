// The write scope of the operation running here (run.ts): what it announces and records is kept
// until its transaction commits. The change bus (changes.ts) and the audit log (audit.ts) ask for it,
// so a store or service called inside an operation needs to know nothing about the runner.
import type { ContentChange } from './changes.js';
import { ScopedStorage } from '../lib/scoped-storage.js';

/**
 * A committed write, as listeners outside the transaction learn of it (webhooks, revisions'
 * housekeeping): made from the operation's audit entry, so every audited write is one event.
 */
export interface DomainEvent {
  /** `post.create`, `post.update`, `membership.grant`, … (the audit log's action). */
  action: string;
  resourceType: string;
  resourceId: string | null;
  /** The websites the resource belongs to (empty: every website, or none). */
  websiteIds: number[];
  userId: number | null;
  apiKeyId: number | null;
  /** api, api-v2, site, admin, cli, system. */
  surface: string;
  requestId: string | null;
  /** When it was recorded (ISO 8601). */
  at: string;
  /**
   * What the event itself says, for a resource nobody can read back later (an import's counts):
   * small JSON, carried to the listeners and, for webhooks, into the payload as the resource.
   */
  detail?: Record<string, unknown>;
}

export class WriteScope {
  readonly changes: ContentChange[] = [];
  readonly events: DomainEvent[] = [];
  private readonly undo: (() => Promise<void> | void)[] = [];
  private readonly commits: (() => Promise<void> | void)[] = [];
  open = true;

  /** Undoes something outside the database (a file written) when the transaction rolls back. */
  onRollback(undo: () => Promise<void> | void): void {
    this.undo.push(undo);
  }

  /** Runs once the transaction has committed (and its announcements were made). */
  afterCommit(work: () => Promise<void> | void): void {
    this.commits.push(work);
  }

  /** @internal the runner's: the undo steps, newest first; each one's failure is reported, not thrown. */
  async rolledBack(warn: (message: string) => void): Promise<void> {
    this.open = false;
    for (const undo of this.undo.reverse()) {
      try {
        await undo();
      } catch (error) {
        warn(`operation rollback: an undo step failed: ${(error as Error).message}`);
      }
    }
  }

  /** @internal the runner's. */
  async committed(warn: (message: string) => void): Promise<void> {
    for (const work of this.commits) {
      try {
        await work();
      } catch (error) {
        warn(`operation: work after commit failed: ${(error as Error).message}`);
      }
    }
  }
}

const scopes = new ScopedStorage<WriteScope>();

/** The open write scope of the operation running here, if any. */
export function currentWriteScope(): WriteScope | undefined {
  const scope = scopes.getStore();
  return scope?.open ? scope : undefined;
}

/** @internal the runner's: runs `work` with `scope` as the current write scope. */
export function withWriteScope<T>(scope: WriteScope, work: () => Promise<T>): Promise<T> {
  return scopes.run(scope, work);
}
