// An example of the typed client: who am I, write a draft, submit it for review, list my drafts.
//   FOLIO_URL=http://localhost:3000 FOLIO_KEY=folio_… npx tsx clients/typescript/example.ts
import { createFolioClient } from './index.js';
import type { FolioClient } from './index.js';

export async function example(
  folio: FolioClient,
): Promise<{ user: string; draftId: number; drafts: string[] }> {
  const me = await folio.GET('/api/v2/me');
  if (me.error) throw new Error(`who am I: ${me.error.title}`);

  const created = await folio.POST('/api/v2/posts', {
    body: {
      title: 'Written with the typed client',
      content: '<p>Hello from TypeScript.</p>',
      status: 'draft',
    },
    headers: { 'idempotency-key': `example-${Date.now()}` },
  });
  if (created.error)
    throw new Error(`create: ${created.error.title} ${JSON.stringify(created.error.errors ?? {})}`);
  const draftId = created.data.data.id!;

  const submitted = await folio.POST('/api/v2/posts/{id}/submit', {
    params: { path: { id: String(draftId) } },
  });
  if (submitted.error) throw new Error(`submit: ${submitted.error.title}`);

  const list = await folio.GET('/api/v2/posts', {
    params: { query: { filter: { status: 'pending' }, sort: '-created_at', fields: 'id,title' } },
  });
  if (list.error) throw new Error(`list: ${list.error.title}`);
  return { user: me.data.data.email, draftId, drafts: list.data.data.map((post) => post.title ?? '') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const folio = createFolioClient(
    process.env.FOLIO_URL ?? 'http://localhost:3000',
    process.env.FOLIO_KEY ?? '',
  );
  console.log(await example(folio));
}
