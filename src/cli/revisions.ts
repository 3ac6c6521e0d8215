// `folio post:revisions ID [--page N] [--per-page N]` (issue 37 #4): a post's revisions, newest first,
// one JSON line each, through the revisions operation (the installation operator may see every
// post's history). A thin face: the rules are domain/revisions/revisions.ts's.
import type { Actor } from '../domain/policy.js';
import type { FaceServices } from '../services.js';

export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

export const POST_REVISIONS_USAGE = `  post:revisions ID [--page N] [--per-page N]
                                 print a post's revisions, newest first (JSON lines)`;

export async function postRevisionsCommand(
  services: FaceServices,
  actor: Actor,
  positionals: string[],
  values: { page?: string; 'per-page'?: string },
  output: CliOutput,
): Promise<number> {
  const [ref] = positionals;
  if (!ref || positionals.length !== 1) {
    output.err('folio: usage: post:revisions ID [--page N] [--per-page N]');
    return 2;
  }
  const result = await services.revisions.list(actor, ref, {
    page: values.page,
    pageSize: values['per-page'],
  });
  for (const revision of result.data) {
    output.out(
      JSON.stringify({
        id: revision.id,
        post_id: revision.resourceId,
        action: revision.action,
        status: revision.status,
        published: revision.published,
        user_id: revision.userId,
        api_key_id: revision.apiKeyId,
        surface: revision.surface,
        created_at: revision.createdAt,
      }),
    );
  }
  const pages = Math.max(1, Math.ceil(result.total / result.pageSize));
  if (result.page < pages) {
    output.err(
      `folio: page ${result.page} of ${pages} (${result.total} revisions); next: --page ${result.page + 1}`,
    );
  }
  return 0;
}
