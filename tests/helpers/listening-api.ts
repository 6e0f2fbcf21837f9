/**
 * Calls to a test app listening on a port (`testApp` then `app.listen`), as a platform's webhook
 * tests need: the API over real HTTP with a key, and the account's verifications charged so far.
 */
import { monthOf } from '../../src/usage/months.ts';
import type { TestApp } from './app.ts';

// biome-ignore lint/suspicious/noExplicitAny: the tests read the API's JSON as they expect it.
type Json = any;

/** `method /api/v1{path}` at `origin` with a Bearer key: the status and the parsed body. */
export async function keyCall(
  origin: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${origin}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** The test key's account's verifications this month (watches verify on the account's quota). */
export async function verificationsCharged(t: TestApp): Promise<number> {
  await t.flushDaily();
  const key = await t.store.dashboardKey(t.keyRecord.accountId);
  return (await t.store.usage({ accountId: t.keyRecord.accountId, keyId: key.id }, monthOf(new Date())))
    .account.verifications;
}
