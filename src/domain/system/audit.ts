// The audit log (issue 20): who changed what, when and from where. Entries name the fields a write
// changed, never their values: no secrets, no bodies. Rows are kept `audit_retention_days` days
// (a setting, default 90) and pruned by `prune()`, which the scheduler calls.
import { sql } from 'kysely';
import { deleteInChunks } from '../../db/chunked.js';
import type { Db } from '../../db/database.js';
import { nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import type { Actor } from '../policy.js';
import { toIso } from '../values.js';
import { currentWriteScope } from '../write-scope.js';
import type { DomainEvent } from '../write-scope.js';

export const AUDIT_RETENTION_SETTING = 'audit_retention_days';
export const DEFAULT_AUDIT_RETENTION_DAYS = 90;
export const AUDIT_SURFACES = ['api', 'api-v2', 'site', 'admin', 'cli', 'system'] as const;
export type AuditSurface = (typeof AUDIT_SURFACES)[number];

/** Field names that are never written to the log, even as names of changed fields' values. */
const SECRET_FIELD = /pass|token|secret|key|hash|code|cookie|session/i;
const MAX_SUMMARY_FIELDS = 40;

export interface AuditEntry {
  /** The user who acted; null for an anonymous or system write. */
  userId: number | null;
  apiKeyId?: number | null;
  /** What was done: `post.update`, `membership.grant`, … */
  action: string;
  resourceType: string;
  resourceId?: string | number | null;
  websiteId?: number | null;
  surface: AuditSurface;
  requestId?: string | null;
  /** The client's address, when the proxy settings let Folio know it. */
  clientIp?: string | null;
  /** The input of the write: only the names of its fields are kept, secrets' names included as `*`. */
  input?: unknown;
  /** Every website the resource belongs to (the event's; the row keeps `websiteId`). */
  websiteIds?: readonly number[];
  /** What the event says of itself (DomainEvent.detail); not kept in the row. */
  detail?: Record<string, unknown>;
}

export interface AuditRecord {
  id: number;
  createdAt: string;
  userId: number | null;
  apiKeyId: number | null;
  action: string;
  resourceType: string;
  resourceId: string | null;
  websiteId: number | null;
  surface: string;
  requestId: string | null;
  clientIp: string | null;
  /** The names of the changed fields, comma-separated. */
  summary: string | null;
}

export interface AuditQuery {
  websiteId?: number;
  userId?: number;
  /** The action's name (`post.update`), or its start followed by a dot (`post.`: every post action). */
  action?: string;
  resourceType?: string;
  resourceId?: string;
  since?: Date;
  until?: Date;
  /** Newest first; entries with an id below this one (the next page). */
  beforeId?: number;
  limit?: number;
}

/** The names of an input's fields, secrets masked, sorted and bounded: never a value. */
export function summarizeInput(input: unknown): string | null {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return null;
  const names = Object.keys(input)
    .filter((name) => !/^_|^api_token$/.test(name))
    .map((name) => (SECRET_FIELD.test(name) ? '*' : name.slice(0, 40)))
    .sort();
  const unique = [...new Set(names)];
  if (unique.length === 0) return null;
  const kept = unique.slice(0, MAX_SUMMARY_FIELDS);
  return (kept.join(',') + (unique.length > kept.length ? ',…' : '')).slice(0, 1000);
}

export class AuditLog {
  /** Where the events of entries recorded outside any operation's scope go (the runner's outbox). */
  private unscoped: ((event: DomainEvent) => Promise<void>) | null = null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Every recorded entry is also a domain event (run.ts): in an operation, its scope keeps it. */
  onUnscopedEvent(sink: (event: DomainEvent) => Promise<void>): void {
    this.unscoped = sink;
  }

  async record(entry: AuditEntry): Promise<void> {
    const at = nowIso(this.clock);
    await this.db
      .insertInto('audit_log')
      .values({
        created_at: at,
        user_id: entry.userId,
        api_key_id: entry.apiKeyId ?? null,
        action: entry.action.slice(0, 60),
        resource_type: entry.resourceType.slice(0, 40),
        resource_id: entry.resourceId == null ? null : String(entry.resourceId).slice(0, 64),
        website_id: entry.websiteId ?? null,
        surface: entry.surface,
        request_id: entry.requestId?.slice(0, 64) ?? null,
        client_ip: entry.clientIp?.slice(0, 45) ?? null,
        summary: summarizeInput(entry.input),
      })
      .execute();
    const event: DomainEvent = {
      action: entry.action,
      resourceType: entry.resourceType,
      resourceId: entry.resourceId == null ? null : String(entry.resourceId),
      websiteIds: [...(entry.websiteIds ?? (entry.websiteId != null ? [entry.websiteId] : []))],
      userId: entry.userId,
      apiKeyId: entry.apiKeyId ?? null,
      surface: entry.surface,
      requestId: entry.requestId ?? null,
      at: toIso(at),
      ...(entry.detail ? { detail: entry.detail } : {}),
    };
    const scope = currentWriteScope();
    if (scope) scope.events.push(event);
    else await this.unscoped?.(event);
  }

  async list(query: AuditQuery = {}): Promise<AuditRecord[]> {
    let select = this.db.selectFrom('audit_log').selectAll();
    if (query.websiteId !== undefined) select = select.where('website_id', '=', query.websiteId);
    if (query.userId !== undefined) select = select.where('user_id', '=', query.userId);
    if (query.action !== undefined) {
      const action = query.action;
      select = action.endsWith('.')
        ? select.where('action', 'like', `${action.replace(/[\\%_]/g, '')}%`)
        : select.where('action', '=', action);
    }
    if (query.resourceType !== undefined) select = select.where('resource_type', '=', query.resourceType);
    if (query.resourceId !== undefined) select = select.where('resource_id', '=', query.resourceId);
    if (query.since) select = select.where('created_at', '>=', query.since.toISOString());
    if (query.until) select = select.where('created_at', '<', query.until.toISOString());
    if (query.beforeId !== undefined) select = select.where('id', '<', query.beforeId);
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
    const rows = await select.orderBy('id', 'desc').limit(limit).execute();
    return rows.map((row) => ({
      id: row.id,
      createdAt: toIso(row.created_at),
      userId: row.user_id,
      apiKeyId: row.api_key_id,
      action: row.action,
      resourceType: row.resource_type,
      resourceId: row.resource_id,
      websiteId: row.website_id,
      surface: row.surface,
      requestId: row.request_id,
      clientIp: row.client_ip,
      summary: row.summary,
    }));
  }

  /** Deletes entries older than `days` days; answers how many. */
  async prune(days: number): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - days * 86_400_000).toISOString();
    // In chunks: months of entries in one DELETE would stall a SQLite server for seconds.
    return deleteInChunks(this.db, 'audit_log', ['id'], sql`created_at < ${cutoff}`);
  }
}

/**
 * Records an operation's write for its actor: who (user, API key), from where (surface, request id,
 * client address), what and where. Inside an operation (run.ts) the entry is part of its transaction:
 * a failure to record undoes the write. Outside one (a write not yet on the runner), after the write
 * committed: a failure is reported, never undoes it.
 */
export async function recordWrite(
  audit: AuditLog | undefined,
  actor: Actor,
  write: {
    action: string;
    resourceType: string;
    resourceId: string | number;
    websiteIds: readonly number[];
    input?: unknown;
    detail?: Record<string, unknown>;
  },
): Promise<void> {
  if (!audit) return;
  const entry: AuditEntry = {
    userId: actor.userId,
    apiKeyId: actor.origin?.apiKeyId ?? null,
    action: write.action,
    resourceType: write.resourceType,
    resourceId: write.resourceId,
    websiteId: write.websiteIds.length === 1 ? write.websiteIds[0] : (actor.websiteId ?? null),
    surface: actor.origin?.surface ?? 'system',
    requestId: actor.origin?.requestId ?? null,
    clientIp: actor.origin?.clientIp ?? null,
    input: write.input,
    websiteIds: write.websiteIds,
    ...(write.detail ? { detail: write.detail } : {}),
  };
  if (currentWriteScope()) return audit.record(entry);
  try {
    await audit.record(entry);
  } catch (error) {
    console.error(
      `audit log: recording ${write.action} of ${write.resourceType} ${write.resourceId} failed: ${(error as Error).message}`,
    );
  }
}
