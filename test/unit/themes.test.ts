// Theme rendering: a theme's own templates win, missing ones come from the default theme, outputs are
// escaped, and the production lookup cache (cacheLookups) renders exactly what the live lookups do.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ThemeRenderer } from '../../src/frontend/themes.js';

describe('theme rendering', () => {
  let root: string;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-themes-'));
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    };
    write('default/layout.liquid', '<main>{% block content %}{% endblock %}</main>{% render "footer" %}');
    write(
      'default/page.liquid',
      "{% layout 'layout' %}{% block content %}<h1>{{ title }}</h1>{% endblock %}",
    );
    write('default/partials/footer.liquid', '<footer>default footer</footer>');
    write('default/assets/site.css', 'body{}');
    write('custom/partials/footer.liquid', '<footer>custom footer</footer>');
    write('secret.liquid', 'outside every theme');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  for (const cacheLookups of [false, true]) {
    describe(cacheLookups ? 'with cached lookups (production)' : 'with live lookups (development)', () => {
      it('a theme overrides a partial and takes the rest from the default theme', async () => {
        const themes = new ThemeRenderer(root, { cacheLookups });
        for (let i = 0; i < 2; i++) {
          assert.equal(
            await themes.render('custom', 'page', { title: '<Hello>' }),
            '<main><h1>&lt;Hello&gt;</h1></main><footer>custom footer</footer>',
          );
          assert.equal(
            await themes.render('default', 'page', { title: 'Hi' }),
            '<main><h1>Hi</h1></main><footer>default footer</footer>',
          );
        }
      });

      it('an unknown theme is the default theme; templates outside the themes are never read', async () => {
        const themes = new ThemeRenderer(root, { cacheLookups });
        assert.equal(themes.resolve('nope'), 'default');
        assert.equal(themes.resolve('custom'), 'custom');
        assert.equal(themes.has('custom', 'page'), true);
        assert.equal(themes.has('custom', '../secret'), false);
        await assert.rejects(themes.render('custom', '../secret', {}));
      });
    });
  }
});
