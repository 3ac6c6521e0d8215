// What administrators do with background jobs (issue 38): list them (queued, running, failed, done,
// with the error of a failed one) and put one back to run. The faces call these; policy.ts decides.
import type { JobQueue, JobStatus, JobView } from '../../jobs/queue.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import type { Actor, Policy } from '../policy.js';

const STATUSES: readonly JobStatus[] = ['queued', 'running', 'done', 'failed'];

export class JobOperations {
  constructor(
    private readonly queue: JobQueue,
    private readonly policy: Policy,
  ) {}

  async list(actor: Actor, filter: { status?: string; limit?: number } = {}): Promise<JobView[]> {
    if (!(await this.policy.can(actor, 'job.manage', {}))) throw new ForbiddenError();
    const status = filter.status;
    if (status !== undefined && !STATUSES.includes(status as JobStatus)) {
      throw new ValidationError({ status: [`The status must be one of ${STATUSES.join(', ')}.`] });
    }
    return this.queue.list({ status: status as JobStatus | undefined, limit: filter.limit });
  }

  async retry(actor: Actor, id: number): Promise<void> {
    if (!(await this.policy.can(actor, 'job.manage', {}))) throw new ForbiddenError();
    if (!(await this.queue.retry(id))) throw new NotFoundError(`No failed or queued job ${id}.`);
  }
}
