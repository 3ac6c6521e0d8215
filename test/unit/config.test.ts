import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, redact } from '../../src/config.js';

describe('config', () => {
  it('uses the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    assert.deepEqual(config.database, {
      dialect: 'sqlite',
      url: 'sqlite:./data/folio.sqlite',
      file: path.resolve('data/folio.sqlite'),
    });
    assert.equal(config.redisUrl, null);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 3000);
    assert.equal(config.appUrl, 'http://127.0.0.1:3000');
    assert.equal(config.mediaDir, path.resolve('data/media'));
    assert.equal(config.logLevel, 'info');
    assert.equal(config.bodyLimit, 10 * 1024 * 1024);
    assert.equal(config.trustProxy, false);
    assert.equal(config.jobLeaseSeconds, 300);
    assert.equal(loadConfig({ JOB_LEASE_SECONDS: '5' }).jobLeaseSeconds, 5);
  });

  it('TRUST_PROXY: off, a number of hops, or proxy addresses and CIDR ranges', () => {
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,::1' }).trustProxy, [
      '10.0.0.1',
      '192.168.0.0/16',
      '::1',
    ]);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://folio:secret@db.example:5432/folio',
      REDIS_URL: 'redis://127.0.0.1:6379/2',
      HOST: '0.0.0.0',
      PORT: '8080',
      APP_URL: 'https://cms.example.com/',
      MEDIA_DIR: '/var/folio/media',
      LOG_LEVEL: 'warn',
      BODY_LIMIT: '2048',
    });
    assert.deepEqual(config.database, {
      dialect: 'postgres',
      url: 'postgres://folio:secret@db.example:5432/folio',
    });
    assert.equal(config.redisUrl, 'redis://127.0.0.1:6379/2');
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.port, 8080);
    assert.equal(config.appUrl, 'https://cms.example.com');
    assert.equal(config.mediaDir, '/var/folio/media');
    assert.equal(config.logLevel, 'warn');
    assert.equal(config.bodyLimit, 2048);
  });

  it('FOLIO_RELEASE_PACKAGE: none by default (npm\u2019s `folio` is another project), an npm name when set', () => {
    assert.equal(loadConfig({}).releasePackage, null);
    assert.equal(
      loadConfig({ FOLIO_RELEASE_PACKAGE: ' @acme/folio-cms ' }).releasePackage,
      '@acme/folio-cms',
    );
    for (const bad of ['Folio', '--registry=http://evil', 'a b']) {
      assert.throws(() => loadConfig({ FOLIO_RELEASE_PACKAGE: bad }), ConfigError, bad);
    }
  });

  it('accepts an in-memory SQLite database', () => {
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).database, {
      dialect: 'sqlite',
      url: 'sqlite::memory:',
      file: ':memory:',
    });
  });

  const bad: Array<[string, string, RegExp]> = [
    ['PORT', 'abc', /^Invalid PORT: "abc" is not a port number/],
    ['PORT', '70000', /^Invalid PORT: /],
    [
      'DATABASE_URL',
      'mysql://root@localhost/x',
      /^Invalid DATABASE_URL: .*must start with sqlite: or postgres:\/\//,
    ],
    ['DATABASE_URL', 'sqlite:', /^Invalid DATABASE_URL: /],
    ['REDIS_URL', 'localhost:6379', /^Invalid REDIS_URL: /],
    ['APP_URL', 'ftp://example.com', /^Invalid APP_URL: /],
    ['APP_URL', 'not a url', /^Invalid APP_URL: /],
    ['LOG_LEVEL', 'loud', /^Invalid LOG_LEVEL: "loud" is not one of/],
    ['BODY_LIMIT', '10MB', /^Invalid BODY_LIMIT: /],
    ['TRUST_PROXY', 'true', /^Invalid TRUST_PROXY: "true" is not an IP address/],
    ['TRUST_PROXY', '10.0.0.0/33', /^Invalid TRUST_PROXY: /],
    ['JOB_LEASE_SECONDS', '1', /^Invalid JOB_LEASE_SECONDS: "1" is not a number of seconds from 2 to 86400/],
    ['JOB_LEASE_SECONDS', 'ten', /^Invalid JOB_LEASE_SECONDS: /],
  ];
  for (const [variable, value, message] of bad) {
    it(`stops with one line naming ${variable} for ${JSON.stringify(value)}`, () => {
      assert.throws(
        () => loadConfig({ [variable]: value }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, message);
          assert.ok(!error.message.includes('\n'));
          return true;
        },
      );
    });
  }

  it('never prints a database password', () => {
    assert.equal(redact('postgres://folio:s3cret@db/folio'), 'postgres://folio:***@db/folio');
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'postgres://u:s3cret@ bad host' }),
      (error: Error) => {
        assert.ok(!error.message.includes('s3cret'));
        return true;
      },
    );
  });
});
