import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

describe('loadConfig', () => {
  it('gives the contract defaults for an empty environment', () => {
    const config = loadConfig({});
    assert.equal(config.http.port, 8080);
    assert.equal(config.http.host, '127.0.0.1');
    assert.equal(config.dataDir, path.resolve('./data'));
    assert.equal(config.database.url, null);
    assert.equal(config.database.preparedStatements, true);
    assert.equal(config.redisUrl, null);
    assert.equal(config.allowPrivateNetworkTargets, false);
    assert.equal(config.blobs.driver, 'local');
    assert.equal(config.worker.inProcess, true);
  });

  it('is frozen, deeply', () => {
    const config = loadConfig({});
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.http));
    assert.throws(() => {
      (config.http as { port: number }).port = 1;
    });
  });

  it('reads every documented variable', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATA_DIR: '/tmp/x',
      DATABASE_URL: 'postgres://u@h:5432/db',
      REDIS_URL: 'redis://127.0.0.1:6379',
      ADMIN_API_KEY: 'k',
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      PUBLIC_BASE_URL: 'https://docs.example.com/',
      SANDBOX_PORT: '9001',
      BLOB_STORE: 's3',
      S3_BUCKET: 'b',
      S3_ENDPOINT: 'http://127.0.0.1:9999',
      S3_FORCE_PATH_STYLE: '1',
    });
    assert.equal(config.http.port, 9000);
    assert.equal(config.http.sandboxPort, 9001);
    assert.equal(config.http.publicBaseUrl, 'https://docs.example.com');
    assert.equal(config.database.url, 'postgres://u@h:5432/db');
    assert.equal(config.allowPrivateNetworkTargets, true);
    assert.deepEqual(config.blobs.driver === 's3' && [config.blobs.bucket, config.blobs.forcePathStyle], ['b', true]);
  });

  it('reads the decode budget and the worker metrics port, refusing values out of range', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.processing.maxDecodedMb, 64);
    assert.equal(defaults.worker.metricsPort, null);
    const set = loadConfig({ PROCESSING_MAX_DECODED_MB: '256', WORKER_METRICS_PORT: '9464' });
    assert.equal(set.processing.maxDecodedMb, 256);
    assert.equal(set.worker.metricsPort, 9464);
    assert.throws(
      () => loadConfig({ PROCESSING_MAX_DECODED_MB: '4', WORKER_METRICS_PORT: '70000' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(
          ['PROCESSING_MAX_DECODED_MB', 'WORKER_METRICS_PORT'].map((name) =>
            error.problems.some((p) => p.includes(name)),
          ),
          [true, true],
        );
        return true;
      },
    );
  });

  it('refuses to start naming every bad variable at once', () => {
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        ALLOW_PRIVATE_NETWORK_TARGETS: 'maybe',
        BLOB_STORE: 's3',
      });
      assert.fail('expected a ConfigError');
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      const text = error.problems.join('\n');
      for (const name of ['PORT', 'DATABASE_URL', 'ALLOW_PRIVATE_NETWORK_TARGETS', 'S3_BUCKET'])
        assert.match(text, new RegExp(name));
      assert.equal(error.problems.length, 4);
    }
  });
});
