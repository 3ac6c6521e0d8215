// A small, honest sample for a fresh installation, so that the first `npm start` shows a real site:
// a category, two tags, three posts about Folio itself, an About page and a menu. Everything is
// ordinary content: edit or delete it in the admin panel (/admin) or through the API like anything else.
import type { FaceServices } from '../services.js';
import type { Actor } from '../domain/policy.js';

const WELCOME = `<p>This website runs on <strong>Folio</strong>, a multi-site content management service. What you
are reading is sample content created on the first start: change it or delete it in the
<a href="/admin">admin panel</a>, or through the API.</p>
<h2>What is here</h2>
<ul>
<li>A blog with paginated listings, categories and tags.</li>
<li>Search, rankings and lists of what readers like.</li>
<li>Sitemaps and a <code>robots.txt</code> for search engines.</li>
</ul>
<p>Every page is rendered on the server from a Liquid theme, in the reader's language when translations exist.</p>`;

const API = `<p>The easiest way to write is the <a href="/admin">admin panel</a> at <code>/admin</code>: sign in with the
administrator's email and password (printed once, on the first start). Programs write through the JSON APIs:
<code>/api/v2</code> (documented at <a href="/api/v2/docs">/api/v2/docs</a>) and the older <code>/api/v1</code>. This
creates a post with API v1 and the admin's token, which was printed on the first start too:</p>
<pre><code>curl -X POST localhost:3000/api/v1/posts/store \\
  -H 'content-type: application/json' \\
  -d '{"api_token":"…","title":"Hello","content":"&lt;p&gt;My first post&lt;/p&gt;"}'</code></pre>
<p><code>POST /api/v1/posts</code> (without <code>/store</code>) lists posts; <code>/api/v1/posts/update/{slug}</code>
changes one. Posts take tags and categories, translations as locale maps, a thumbnail, and a publication time.</p>`;

const THEMES = `<p>A website's look comes from its theme: a folder of Liquid templates under <code>themes/</code>, with a
layout, partials and static assets. A template a theme does not have comes from the default theme, so a theme
can start with a single stylesheet.</p>
<blockquote>Templates escape everything they print unless told otherwise, so content stays content.</blockquote>`;

const ABOUT = `<p>This is a page: content that lives outside the blog, reached from the menu. Pages can render their
content as it is, use a template of the theme, or be replaced by a theme view named after their slug.</p>`;

export async function installSampleContent(
  services: FaceServices,
  adminId: number,
  websiteId: number,
): Promise<void> {
  // Written by the operations as the administrator install made, so the content is theirs.
  const actor: Actor = { userId: adminId, isAdmin: true, websiteId, origin: { surface: 'system' } };
  const tag = async (name: string, type: string) =>
    (await services.tagOps.create(actor, { name, type, website_ids: [websiteId] })).id;
  const notes = await tag('Getting started', 'post_category');
  const folio = await tag('folio', 'post_tag');
  const themes = await tag('themes', 'post_tag');

  const now = services.clock.now().getTime();
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
  const posts = [
    { title: 'Writing posts through the API', content: API, tags: [folio], minutesAgo: 2 },
    { title: 'Themes, layouts and partials', content: THEMES, tags: [folio, themes], minutesAgo: 1 },
    { title: 'Welcome to Folio', content: WELCOME, tags: [folio], minutesAgo: 0 },
  ];
  for (const post of posts) {
    await services.postOps.create(actor, {
      title: post.title,
      content: post.content,
      status: 'published',
      published_at: at(post.minutesAgo),
      tags: post.tags,
      categories: [notes],
      website_id: [websiteId],
    });
  }

  const about = await services.pageOps.create(actor, {
    title: 'About',
    content: ABOUT,
    slug: 'about',
    website_ids: [websiteId],
  });
  const link = (order: number, name: string, url: string) => ({ order, name, type: 'link', url });
  // API v1's menu sync, as an installer would send it.
  await services.menuOps.sync(actor, {
    website_id: websiteId,
    menu_items: [
      link(1, 'Home', '/'),
      link(2, 'Blog', '/blog'),
      link(3, 'Getting started', '/post/category/getting-started'),
      link(4, 'Popular', '/post/list/hot/week'),
      { order: 5, name: 'About', type: 'page', page_id: about.id },
    ],
  });
}
