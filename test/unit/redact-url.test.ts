// Logs never show an API token, whatever spelling of `api_token` the query parser accepts (issue 21 #12).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactUrl } from '../../src/app.js';

describe('redactUrl', () => {
  it('redacts api_token in every spelling the query parser reads, and nothing else', () => {
    assert.equal(redactUrl('/api/v1/posts?api_token=abc&x=1'), '/api/v1/posts?api_token=[redacted]&x=1');
    assert.equal(redactUrl('/api/v1/posts?api%5Ftoken=abc'), '/api/v1/posts?api%5Ftoken=[redacted]');
    assert.equal(
      redactUrl('/api/v1/posts?x=1&api%5ftoken=abc#f'),
      '/api/v1/posts?x=1&api%5ftoken=[redacted]#f',
    );
    assert.equal(
      redactUrl('/a?api_token[]=q&api_token[0]=r'),
      '/a?api_token[]=[redacted]&api_token[0]=[redacted]',
    );
    assert.equal(redactUrl('/a?q=%E0&token_api=1'), '/a?q=%E0&token_api=1');
  });

  it('issue 42: a query that cannot name api_token is left as it is; one that can is still redacted', () => {
    assert.equal(redactUrl('/api/v2/posts?per_page=15&page=2'), '/api/v2/posts?per_page=15&page=2');
    assert.equal(redactUrl('/a?API_TOKEN=abc'), '/a?API_TOKEN=[redacted]');
    assert.equal(redactUrl('/a?%61pi_%74oken=abc&b=1'), '/a?%61pi_%74oken=[redacted]&b=1');
    assert.equal(redactUrl('/a?api_token+=abc'), '/a?api_token+=[redacted]');
    // The word in the path, not in the query: the pair is read as the whole URL was before.
    assert.equal(redactUrl('/x&api_token=abc?b=1'), '/x&api_token=[redacted]');
  });

  it('issue 34 #10: invitation and email change tokens are redacted like reset tokens; their forms are not', () => {
    const token = 'Ab_-'.repeat(11);
    assert.equal(redactUrl(`/user/invite/${token}`), '/user/invite/[redacted]');
    assert.equal(redactUrl(`/fr/user/invite/${token}?next=1#x`), '/fr/user/invite/[redacted]?next=1#x');
    assert.equal(redactUrl(`/user/settings/email/${token}`), '/user/settings/email/[redacted]');
    assert.equal(redactUrl(`/de/user/settings/email/${token}`), '/de/user/settings/email/[redacted]');
    assert.equal(redactUrl('/user/settings/email'), '/user/settings/email');
    assert.equal(redactUrl('/user/settings/email?saved=1'), '/user/settings/email?saved=1');
    assert.equal(redactUrl(`/user/password/reset/${token}`), '/user/password/reset/[redacted]');
  });
});
