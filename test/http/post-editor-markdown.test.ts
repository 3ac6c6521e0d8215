// The public post editor (issue 22, dead end 8): Markdown by default (blank lines make paragraphs,
// the output through the site's sanitizer whoever writes), HTML on request as before, a live preview
// endpoint, and the thumbnail by upload as well as by address (a multipart form).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { Visitor, tokenIn } from '../support/visitor.js';
import { websiteWrites } from '../support/website-writes.js';

/** A multipart body of text fields and files, as a browser sends a form with enctype multipart. */
function multipart(
  fields: Record<string, string>,
  files: Record<string, { filename: string; type: string; data: Buffer }> = {},
): { body: Buffer; contentType: string } {
  const boundary = `----folio${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  for (const [name, file] of Object.entries(files)) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="${name}"; filename="${file.filename}"\r\n` +
          `content-type: ${file.type}\r\n\r\n`,
      ),
      file.data,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

describe('the public post editor: Markdown, preview and thumbnail upload', () => {
  let ctx: TestContext;
  let writer: TestUser;
  let admin: TestUser;
  const clients = new Map<number, Visitor>();

  const as = async (user: TestUser) => {
    let client = clients.get(user.id);
    if (!client) {
      client = new Visitor(ctx, 'site.test', `10.2.0.${user.id % 250}`);
      await client.logIn(user.email, user.password);
      clients.set(user.id, client);
    }
    return client;
  };

  const stored = async (id: number) =>
    ctx.services.database.db
      .selectFrom('posts')
      .select(['content', 'thumbnail', 'status'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  const idFrom = (location: unknown) => Number(/\/post\/edit\/(\d+)\?saved=1$/.exec(String(location))?.[1]);

  /** Posts the create form as multipart (as the theme's form does) with the page's token. */
  async function storeMultipart(
    user: TestUser,
    fields: Record<string, string>,
    files: Parameters<typeof multipart>[1] = {},
  ) {
    const client = await as(user);
    const token = await client.token('/post/create');
    const { body, contentType } = multipart({ _token: token, status: 'published', ...fields }, files);
    return ctx.request({
      method: 'POST',
      url: '/post/store',
      remoteAddress: client.address,
      payload: body,
      headers: {
        host: 'site.test',
        origin: 'http://site.test',
        'content-type': contentType,
        'content-length': String(body.length),
        cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
      },
    });
  }

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    const site = await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    writer = await ctx.createUser();
    await ctx.services.memberships.grant(writer.id, site, 'author');
    admin = await ctx.createUser({ admin: true });
  });
  after(() => ctx.close());

  it('offers Markdown for a new post, a toolbar and preview hook, and a thumbnail upload', async () => {
    const page = await (await as(writer)).get('/post/create');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /enctype="multipart\/form-data"/);
    assert.match(page.body, /<input type="radio" name="format" value="markdown" checked>/);
    assert.match(page.body, /<input id="thumbnail" name="thumbnail" type="file"/);
    assert.match(page.body, /data-preview="\/post\/preview"/);
    assert.match(
      page.body,
      /<script src="\/themes\/default\/assets\/editor\.js\?v=[a-f0-9]+" defer><\/script>/,
    );
    const script = await ctx.request({
      method: 'GET',
      url: '/themes/default/assets/editor.js',
      headers: { host: 'site.test' },
    });
    assert.equal(script.statusCode, 200);
  });

  it('stores Markdown as paragraphs, without the script a writer typed', async () => {
    const response = await (
      await as(writer)
    ).submit('/post/create', '/post/store', {
      title: 'Typed in Markdown',
      format: 'markdown',
      content: 'First paragraph\nstill the first.\n\nSecond **paragraph**.\n\n<script>alert(1)</script>',
      status: 'published',
    });
    assert.equal(response.statusCode, 303, response.body);
    const post = await stored(idFrom(response.headers.location));
    assert.equal(
      post.content,
      '<p>First paragraph<br />\nstill the first.</p>\n<p>Second <strong>paragraph</strong>.</p>',
    );
    const shown = await ctx.request({
      method: 'GET',
      url: '/post/typed-in-markdown',
      headers: { host: 'site.test' },
    });
    assert.match(shown.body, /<p>Second <strong>paragraph<\/strong>\.<\/p>/);
  });

  it('sanitizes Markdown output for administrators too (an onerror in the Markdown is gone)', async () => {
    const response = await (
      await as(admin)
    ).submit('/post/create', '/post/store', {
      title: 'Admin Markdown',
      format: 'markdown',
      content: 'Look: <img src="https://example.com/a.png" onerror="alert(1)">',
      status: 'published',
    });
    assert.equal(response.statusCode, 303);
    const post = await stored(idFrom(response.headers.location));
    assert.equal(post.content, '<p>Look: <img src="https://example.com/a.png" /></p>');
  });

  it('keeps HTML as before when the form says HTML (or says nothing)', async () => {
    const response = await (
      await as(writer)
    ).submit('/post/create', '/post/store', {
      title: 'Written in HTML',
      content: '<h2>Part</h2>\n\n<p>Text</p><script>alert(1)</script>',
      status: 'draft',
    });
    assert.equal(response.statusCode, 303);
    const id = idFrom(response.headers.location);
    assert.equal((await stored(id)).content, '<h2>Part</h2>\n\n<p>Text</p>');
    // Its edit form shows the stored HTML, marked as HTML.
    const edit = await (await as(writer)).get(`/post/edit/${id}`);
    assert.match(edit.body, /<input type="radio" name="format" value="html" checked>/);
    assert.match(edit.body, /&lt;h2&gt;Part&lt;\/h2&gt;/);
  });

  it('refuses Markdown that leaves nothing, with the form again', async () => {
    const response = await (
      await as(writer)
    ).submit('/post/create', '/post/store', {
      title: 'Nothing',
      format: 'markdown',
      content: '<script>alert(1)</script>',
      status: 'draft',
    });
    assert.equal(response.statusCode, 422);
    assert.match(response.body, /The content field is required\./);
    assert.match(response.body, /<input type="radio" name="format" value="markdown" checked>/);
  });

  it('takes the thumbnail as an uploaded picture (multipart), which wins over an address', async () => {
    const picture = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#884422' } })
      .png()
      .toBuffer();
    const response = await storeMultipart(
      writer,
      {
        title: 'With an uploaded picture',
        format: 'markdown',
        content: 'A picture above.',
        thumbnail_url: 'https://example.com/ignored.jpg',
      },
      { thumbnail: { filename: 'cover.png', type: 'image/png', data: picture } },
    );
    assert.equal(response.statusCode, 303, response.body);
    const post = await stored(idFrom(response.headers.location));
    assert.match(String(post.thumbnail), /\/media\/posts\/\d{4}\/\d{2}\/[0-9a-f]+\.png$/);
    assert.equal(post.content, '<p>A picture above.</p>');
  });

  it('an empty file input uploads nothing; a file that is not a picture is refused on the form', async () => {
    const empty = await storeMultipart(
      writer,
      { title: 'No picture', format: 'markdown', content: 'Text only.' },
      { thumbnail: { filename: '', type: 'application/octet-stream', data: Buffer.alloc(0) } },
    );
    assert.equal(empty.statusCode, 303, empty.body);
    assert.equal((await stored(idFrom(empty.headers.location))).thumbnail, null);

    const text = await storeMultipart(
      writer,
      { title: 'Not a picture', format: 'markdown', content: 'Text.' },
      { thumbnail: { filename: 'notes.png', type: 'image/png', data: Buffer.from('not an image at all') } },
    );
    assert.equal(text.statusCode, 422);
    assert.match(text.body, /thumbnail/i);
  });

  it('refuses a multipart body on routes that take no files', async () => {
    const client = await as(writer);
    const { body, contentType } = multipart({ _token: 'x' });
    const response = await ctx.request({
      method: 'POST',
      url: '/user/login/submit',
      payload: body,
      headers: {
        host: 'site.test',
        origin: 'http://site.test',
        'content-type': contentType,
        'content-length': String(body.length),
        cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
      },
    });
    assert.equal(response.statusCode, 415);
  });

  it('previews the content as it will be stored, for signed-in writers with the form token', async () => {
    const client = await as(writer);
    const token = tokenIn((await client.get('/post/create')).body)!;
    const preview = await client.post(
      '/post/preview',
      { _token: token, format: 'markdown', content: '# Hi\n\nText <img src=x onerror=alert(1)>' },
      { origin: 'http://site.test', accept: 'application/json' },
    );
    assert.equal(preview.statusCode, 200);
    assert.equal(preview.headers['cache-control'], 'private, no-store');
    const html = preview.json().data.html as string;
    assert.match(html, /<h2>Hi<\/h2>/);
    assert.doesNotMatch(html, /onerror|alert/);

    const asHtml = await client.post(
      '/post/preview',
      { _token: token, format: 'html', content: '<p onclick="x()">Hi</p>' },
      { origin: 'http://site.test' },
    );
    assert.equal(asHtml.json().data.html, '<p>Hi</p>');

    const noToken = await client.post('/post/preview', { content: 'x' }, { origin: 'http://site.test' });
    assert.equal(noToken.statusCode, 403);
    const anonymous = await new Visitor(ctx).post(
      '/post/preview',
      { content: 'x' },
      { origin: 'http://site.test' },
    );
    assert.equal(anonymous.statusCode, 401);
  });
});
