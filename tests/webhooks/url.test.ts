/** The `webhook_url` rules checked when a list is made. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_WEBHOOK_URL_LENGTH, validateWebhookUrl } from '../../src/webhooks/url.ts';

describe('validateWebhookUrl', () => {
  it('accepts absolute http and https URLs', () => {
    for (const url of [
      'https://hooks.example.com/mailvet',
      'http://hooks.example.com:8080/a/b?token=abc#frag',
      'https://[2001:db8::1]/hook',
      'https://93.184.216.34/hook',
      'https://bücher.example/hook',
    ]) {
      assert.equal(validateWebhookUrl(url), null, url);
    }
    const longest = `https://example.com/${'a'.repeat(MAX_WEBHOOK_URL_LENGTH - 20)}`;
    assert.equal(longest.length, MAX_WEBHOOK_URL_LENGTH);
    assert.equal(validateWebhookUrl(longest), null);
  });

  it('gives a reason for everything else', () => {
    const bad: unknown[] = [
      undefined,
      null,
      42,
      '',
      '   ',
      '/relative/path',
      'hooks.example.com/mailvet',
      'ftp://example.com/hook',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/plain,hi',
      'https://user:pass@example.com/hook',
      'https://user@example.com/hook',
      ' https://example.com/hook',
      'https://example.com/ho ok',
      'https://example.com/\nhook',
      'https://',
      `https://example.com/${'a'.repeat(MAX_WEBHOOK_URL_LENGTH)}`,
    ];
    for (const url of bad) {
      const reason = validateWebhookUrl(url);
      assert.equal(typeof reason, 'string', String(url));
      assert.ok((reason ?? '').length > 0);
    }
  });
});
