/**
 * The store contract: one suite, run against every backend (SQLite, PostgreSQL). A backend's test
 * file hands in where its database is and how to make a fresh one.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import type { ApiKeyRecord } from '../../../src/accounts/ports.ts';
import { openStore } from '../../../src/adapters/store/open-store.ts';
import type { Store } from '../../../src/store.ts';
import { storeConcurrencyContract } from './store-concurrency-contract.ts';
import {
  accountUsage,
  atMost,
  both,
  connectedIntegration,
  createKey,
  ownerOf,
  type StoreContractTarget,
} from './store-fixtures.ts';

export type { StoreContractTarget };

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Registers the whole contract suite for one backend. */
export function storeContract(target: StoreContractTarget): void {
  describe(`${target.kind} store contract`, () => {
    let store: Store;
    before(async () => {
      store = await openStore(target.options);
    });
    after(async () => {
      await store.close();
    });
    const newKey = (overrides: Partial<ApiKeyRecord> = {}) => createKey(store, overrides);

    it('reports its kind and answers ping', async () => {
      assert.equal(store.kind, target.kind);
      await store.ping();
    });

    it('creates accounts with distinct ids and ISO creation instants', async () => {
      const first = await store.createAccount({ name: 'Acme', plan: 'free' });
      const second = await store.createAccount({ name: 'Acme', plan: 'free' });
      assert.equal(first.name, 'Acme');
      assert.notEqual(first.id, second.id);
      assert.match(first.createdAt, ISO_INSTANT);
    });

    it('finds an account by id, and null for an unknown id', async () => {
      const created = await store.createAccount({ name: 'Findable', plan: 'free' });
      assert.deepEqual(await store.findAccount(created.id), created);
      assert.equal(await store.findAccount(randomUUID()), null);
    });

    it('creates a key and finds it by hash, with prefix and no caps', async () => {
      const account = await store.createAccount({ name: 'Keys', plan: 'starter' });
      const keyHash = `hash-${randomUUID()}`;
      const created = await store.createApiKey({
        accountId: account.id,
        kind: 'api',
        name: 'ci',
        keyHash,
        displayPrefix: 'mv_live_ab12',
        caps: { monthlyQuota: null, bulkQuota: null, rateLimit: null },
      });
      assert.match(created.createdAt, ISO_INSTANT);
      assert.equal(created.revokedAt, null);
      assert.equal(created.lastUsedAt, null);
      assert.deepEqual(await store.findApiKeyByHash(keyHash), {
        key: created,
        account: await store.findAccount(created.accountId),
      });
      assert.equal(await store.findApiKeyByHash(`${keyHash}-other`), null);
      assert.equal(await store.findApiKeyByHash(''), null);
    });

    it("stores a key's caps and an account's plan and overrides, figures beyond 32 bits included", async () => {
      const key = await newKey({ caps: { monthlyQuota: 5_000_000_000, bulkQuota: 0, rateLimit: 7 } });
      const found = (await store.findApiKeyByHash(key.keyHash))?.key;
      assert.deepEqual(found?.caps, { monthlyQuota: 5_000_000_000, bulkQuota: 0, rateLimit: 7 });
      const account = await store.createAccount({ name: 'Big', plan: 'pro', monthlyQuota: 6_000_000_000 });
      assert.deepEqual(await store.findAccount(account.id), account);
      assert.equal(account.monthlyQuota, 6_000_000_000);
      assert.equal(account.bulkQuota, null);
      const updated = await store.updateAccount(account.id, {
        plan: 'starter',
        rateLimit: 9,
        monthlyQuota: null,
      });
      assert.deepEqual(
        [updated?.plan, updated?.rateLimit, updated?.monthlyQuota, updated?.name],
        ['starter', 9, null, 'Big'],
      );
      assert.equal(await store.updateAccount(`missing-${randomUUID()}`, { plan: 'pro' }), null);
      assert.ok((await store.listAccounts()).some((listed) => listed.id === account.id));
    });

    it("changes a key's name and caps only within its own account", async () => {
      const key = await newKey();
      const other = await store.createAccount({ name: 'Other', plan: 'free' });
      assert.equal(await store.updateApiKey(other.id, key.id, { name: 'stolen' }), null);
      assert.equal((await store.findApiKeyById(key.id))?.name, key.name);
      const updated = await store.updateApiKey(key.accountId, key.id, {
        name: 'renamed',
        caps: { rateLimit: 3 },
      });
      assert.equal(updated?.name, 'renamed');
      assert.deepEqual(updated?.caps, { monthlyQuota: null, bulkQuota: null, rateLimit: 3 });
      const cleared = await store.updateApiKey(key.accountId, key.id, {
        caps: { rateLimit: null, monthlyQuota: 40 },
      });
      assert.deepEqual(cleared?.caps, { monthlyQuota: 40, bulkQuota: null, rateLimit: null });
      await store.touchApiKey(key.id, new Date('2026-11-01T10:00:00.000Z'));
      assert.equal((await store.findApiKeyById(key.id))?.lastUsedAt, '2026-11-01T10:00:00.000Z');
    });

    it("makes an account's dashboard key once, never listed among its API keys", async () => {
      const key = await newKey();
      const [first, second] = await Promise.all([
        store.dashboardKey(key.accountId),
        store.dashboardKey(key.accountId),
      ]);
      assert.equal(first.kind, 'dashboard');
      assert.equal(first.id, second.id);
      assert.equal((await store.dashboardKey(key.accountId)).id, first.id);
      assert.deepEqual(
        (await store.listApiKeys(key.accountId)).map((listed) => listed.id),
        [key.id],
      );
      assert.equal(await store.updateApiKey(key.accountId, first.id, { name: 'x' }), null);
    });

    it('stores users with unique addresses, and sessions by token hash; a password change ends the others', async () => {
      const account = await store.createAccount({ name: 'People', plan: 'free' });
      const email = `someone-${randomUUID()}@example.com`;
      const user = await store.users.createUser({ accountId: account.id, email, passwordHash: 'h1' });
      assert.ok(user !== null);
      assert.equal(await store.users.createUser({ accountId: account.id, email, passwordHash: 'h2' }), null);
      assert.deepEqual(await store.users.findUserByEmail(email), user);
      assert.deepEqual(await store.users.findUserById(user.id), user);
      const at = '2026-11-01T00:00:00.000Z';
      const session = (token: string) =>
        store.users.createSession({
          userId: user.id,
          tokenHash: token,
          createdAt: at,
          lastSeenAt: at,
          expiresAt: at,
        });
      const kept = await session(`t-${randomUUID()}`);
      const ended = await session(`t-${randomUUID()}`);
      assert.deepEqual(await store.users.findSessionByHash(kept.tokenHash), kept);
      await store.users.extendSession(kept.id, '2026-11-02T00:00:00.000Z', '2026-12-02T00:00:00.000Z');
      assert.equal(
        (await store.users.findSessionByHash(kept.tokenHash))?.expiresAt,
        '2026-12-02T00:00:00.000Z',
      );
      await store.users.changePassword(user.id, 'h3', kept.id);
      assert.equal((await store.users.findUserById(user.id))?.passwordHash, 'h3');
      assert.equal(await store.users.findSessionByHash(ended.tokenHash), null);
      assert.ok((await store.users.findSessionByHash(kept.tokenHash)) !== null);
      await store.users.deleteSession(kept.id);
      assert.equal(await store.users.findSessionByHash(kept.tokenHash), null);

      // Expired ones go in the sweep; one expiring later stays.
      const old = await session(`t-${randomUUID()}`);
      const current = await session(`t-${randomUUID()}`);
      await store.users.extendSession(current.id, at, '2026-12-01T00:00:00.000Z');
      assert.ok((await store.users.deleteExpiredSessions('2026-11-15T00:00:00.000Z')) >= 1);
      assert.equal(await store.users.findSessionByHash(old.tokenHash), null);
      assert.ok((await store.users.findSessionByHash(current.tokenHash)) !== null);
    });

    it('confirms addresses: a user made without a confirmation instant is confirmed at creation', async () => {
      const account = await store.createAccount({ name: 'Confirmed', plan: 'free' });
      const operatorMade = await store.users.createUser({
        accountId: account.id,
        email: `made-${randomUUID()}@example.com`,
        passwordHash: 'h',
      });
      assert.equal(operatorMade?.emailConfirmedAt, operatorMade?.createdAt);
      const signUp = await store.users.createUser({
        accountId: account.id,
        email: `waiting-${randomUUID()}@example.com`,
        passwordHash: 'h',
        emailConfirmedAt: null,
      });
      assert.ok(signUp !== null);
      assert.equal(signUp.emailConfirmedAt, null);
      assert.equal((await store.users.findUserById(signUp.id))?.emailConfirmedAt, null);
      await store.users.confirmEmail(signUp.id, '2026-11-02T00:00:00.000Z');
      await store.users.confirmEmail(signUp.id, '2026-11-03T00:00:00.000Z');
      assert.equal(
        (await store.users.findUserByEmail(signUp.email))?.emailConfirmedAt,
        '2026-11-02T00:00:00.000Z',
        'the first confirmation stands',
      );
    });

    it('keeps one-time links by hash: used once, not after expiry, not for another purpose, replaced by a newer one', async () => {
      const account = await store.createAccount({ name: 'Links', plan: 'free' });
      const user = await store.users.createUser({
        accountId: account.id,
        email: `links-${randomUUID()}@example.com`,
        passwordHash: 'h',
      });
      assert.ok(user !== null);
      const link = (tokenHash: string, purpose: 'confirm_email' | 'reset_password', expiresAt: string) =>
        store.users.createUserToken({
          userId: user.id,
          purpose,
          tokenHash,
          createdAt: '2026-11-01T00:00:00.000Z',
          expiresAt,
        });
      const before = '2026-11-01T00:30:00.000Z';
      await link(`reset-${randomUUID()}`, 'reset_password', '2026-11-01T01:00:00.000Z');
      const confirm = `confirm-${randomUUID()}`;
      await link(confirm, 'confirm_email', '2026-11-03T00:00:00.000Z');
      const reset = `reset-${randomUUID()}`;
      await link(reset, 'reset_password', '2026-11-01T01:00:00.000Z');

      assert.equal(await store.users.takeUserToken(reset, 'confirm_email', before), null, 'another purpose');
      const [first, second] = await Promise.all([
        store.users.takeUserToken(reset, 'reset_password', before),
        store.users.takeUserToken(reset, 'reset_password', before),
      ]);
      assert.deepEqual([first, second].sort(), [null, user.id].sort(), 'of two takes at once, one gets it');
      assert.equal(await store.users.takeUserToken(reset, 'reset_password', before), null, 'used once');
      // The confirmation link is another purpose: the reset links did not replace it.
      assert.equal(
        await store.users.takeUserToken(confirm, 'confirm_email', '2026-11-03T00:00:00.000Z'),
        null,
        'expired',
      );
      assert.equal(await store.users.takeUserToken(`none-${randomUUID()}`, 'reset_password', before), null);

      const older = `confirm-${randomUUID()}`;
      const newer = `confirm-${randomUUID()}`;
      await link(older, 'confirm_email', '2026-11-03T00:00:00.000Z');
      await link(newer, 'confirm_email', '2026-11-03T00:00:00.000Z');
      assert.equal(await store.users.takeUserToken(older, 'confirm_email', before), null, 'replaced');
      assert.equal(await store.users.takeUserToken(newer, 'confirm_email', before), user.id);

      const stale = `reset-${randomUUID()}`;
      await link(stale, 'reset_password', '2026-10-01T00:00:00.000Z');
      assert.ok((await store.users.deleteExpiredUserTokens('2026-10-02T00:00:00.000Z')) >= 1);
      assert.equal(
        await store.users.takeUserToken(stale, 'reset_password', '2026-09-01T00:00:00.000Z'),
        null,
      );

      const kept = `confirm-${randomUUID()}`;
      await link(kept, 'confirm_email', '2026-11-03T00:00:00.000Z');
      await store.deleteAccount(account.id);
      assert.equal(
        await store.users.takeUserToken(kept, 'confirm_email', before),
        null,
        'gone with the user',
      );
    });

    it("keeps integrations per account: another account's is not found, not changed, not deleted", async () => {
      const mine = await store.createAccount({ name: 'Mine', plan: 'free' });
      const theirs = await store.createAccount({ name: 'Theirs', plan: 'free' });
      const integration = {
        id: `int_${randomUUID()}`,
        accountId: mine.id,
        provider: 'mailchimp' as const,
        accountName: 'Shop',
        providerAccountId: 'abc123',
        dc: 'us21',
        state: 'connected' as const,
        message: null,
        authKind: 'api_key' as const,
        sealedCredential: 'v1.sealed',
        createdAt: '2026-11-26T10:00:00.000Z',
      };
      await store.integrations.createIntegration(integration);
      assert.deepEqual(await store.integrations.findIntegration(mine.id, integration.id), integration);
      assert.deepEqual(await store.integrations.listIntegrations(mine.id), [integration]);
      assert.equal(await store.integrations.findIntegration(theirs.id, integration.id), null);
      assert.deepEqual(await store.integrations.listIntegrations(theirs.id), []);
      assert.equal(await store.integrations.markDisconnected(theirs.id, integration.id, 'no'), false);
      assert.equal(await store.integrations.deleteIntegration(theirs.id, integration.id), false);

      assert.equal(await store.integrations.markDisconnected(mine.id, integration.id, 'Key revoked'), true);
      assert.deepEqual(await store.integrations.findIntegration(mine.id, integration.id), {
        ...integration,
        state: 'disconnected',
        message: 'Key revoked',
      });
      assert.equal(await store.integrations.deleteIntegration(mine.id, integration.id), true);
      assert.equal(await store.integrations.findIntegration(mine.id, integration.id), null);
      assert.equal(await store.integrations.deleteIntegration(mine.id, integration.id), false);
    });

    it('keeps watches per account; a member is claimed once per window, even by two at once', async () => {
      const { accountId: mineId, integrationId } = await connectedIntegration(store, 'Watcher');
      const mine = { id: mineId };
      const watch = {
        id: `wch_${randomUUID()}`,
        accountId: mine.id,
        integrationId,
        audienceId: 'aud1',
        tokenHash: `hash-${randomUUID()}`,
        webhookId: null,
        createdAt: '2026-11-26T10:00:00.000Z',
      };
      await store.integrations.createWatch(watch);
      await store.integrations.setWatchWebhook(watch.id, 'wh1');
      const stored = { ...watch, webhookId: 'wh1', pollCursor: null };
      assert.deepEqual(await store.integrations.findWatchByTokenHash(watch.tokenHash), stored);
      assert.deepEqual(await store.integrations.listWatches(mine.id, integrationId), [stored]);
      assert.deepEqual(await store.integrations.listWatches(randomUUID(), integrationId), []);
      assert.equal(await store.integrations.findWatch(randomUUID(), integrationId, watch.id), null);

      const at = '2026-11-26T10:00:00.000Z';
      const dayBefore = '2026-11-25T10:00:00.000Z';
      const claims = await Promise.all(
        [1, 2, 3].map(() => store.integrations.claimWatchMember(watch.id, 'm1', at, dayBefore)),
      );
      assert.deepEqual(claims.filter(Boolean).length, 1, 'one claim of three at once');
      assert.equal(
        await store.integrations.claimWatchMember(watch.id, 'm1', '2026-11-26T12:00:00.000Z', dayBefore),
        false,
      );
      assert.equal(
        await store.integrations.claimWatchMember(
          watch.id,
          'm1',
          '2026-11-27T11:00:00.000Z',
          '2026-11-26T11:00:00.000Z',
        ),
        true,
        'claimed again once the window passed',
      );
      // A claim given back (nothing was verified) frees the member at once; another's claim stays.
      await store.integrations.releaseWatchMember(watch.id, 'm1', '2026-11-26T10:00:00.000Z');
      assert.equal(
        await store.integrations.claimWatchMember(watch.id, 'm1', '2026-11-27T11:30:00.000Z', dayBefore),
        false,
        'a release of an older claim does nothing',
      );
      await store.integrations.releaseWatchMember(watch.id, 'm1', '2026-11-27T11:00:00.000Z');
      assert.equal(
        await store.integrations.claimWatchMember(watch.id, 'm1', '2026-11-27T11:30:00.000Z', dayBefore),
        true,
        'claimed again once given back',
      );
      assert.equal(await store.integrations.deleteIntegration(mine.id, integrationId), true);
      assert.equal(await store.integrations.findWatchByTokenHash(watch.tokenHash), null, 'removed with it');
    });

    it('finds integrations by platform account, polled watches and their cursors, and a watched member’s address', async () => {
      const portal = `portal-${randomUUID()}`;
      const first = await connectedIntegration(store, 'Portal owner');
      const second = await connectedIntegration(store, 'Portal partner');
      const base = {
        provider: 'hubspot',
        accountName: 'Portal',
        providerAccountId: portal,
        dc: 'na1',
        state: 'connected' as const,
        message: null,
        authKind: 'api_key' as const,
        sealedCredential: 'v1.x',
      };
      for (const [n, owner] of [first, second].entries())
        await store.integrations.createIntegration({
          ...base,
          id: `int_hs${n}_${portal}`,
          accountId: owner.accountId,
          createdAt: `2026-11-26T10:00:0${n}.000Z`,
        });
      const onPortal = await store.integrations.integrationsOnPlatformAccount('hubspot', portal);
      assert.deepEqual(
        onPortal.map((integration) => integration.accountId),
        [first.accountId, second.accountId],
      );
      assert.deepEqual(await store.integrations.integrationsOnPlatformAccount('mailchimp', portal), []);

      const integrationId = `int_hs0_${portal}`;
      const watch = {
        id: `wch_${randomUUID()}`,
        accountId: first.accountId,
        integrationId,
        audienceId: 'all',
        tokenHash: `hash-${randomUUID()}`,
        webhookId: null,
        createdAt: '2026-11-26T10:00:00.000Z',
        pollCursor: '2026-11-26T10:00:00.000Z',
      };
      await store.integrations.createWatch(watch);
      await store.integrations.setWatchWebhook(watch.id, 'polling');
      const polled = await store.integrations.watchesWithWebhook('polling');
      assert.deepEqual(
        polled.find((each) => each.id === watch.id),
        { ...watch, webhookId: 'polling' },
      );
      const later = '2026-11-26T10:05:00.000Z';
      assert.equal(await store.integrations.advanceWatchCursor(watch.id, watch.pollCursor, later), true);
      assert.equal(
        await store.integrations.advanceWatchCursor(watch.id, watch.pollCursor, '2026-11-26T10:06:00.000Z'),
        false,
        'moved by another first',
      );
      assert.equal(
        (await store.integrations.findWatch(first.accountId, integrationId, watch.id))?.pollCursor,
        later,
      );

      const at = '2026-11-26T10:00:00.000Z';
      assert.equal(
        await store.integrations.claimWatchMember(watch.id, '501', at, '2026-11-25T10:00:00.000Z'),
        true,
      );
      await store.integrations.noteWatchMemberAddress(watch.id, '501', at, 'jane@example.test');
      assert.deepEqual(await store.integrations.addressesOfMember(integrationId, '501'), [
        'jane@example.test',
      ]);
      assert.deepEqual(await store.integrations.addressesOfMember(`int_hs1_${portal}`, '501'), []);
      assert.deepEqual(await store.integrations.addressesOfMember(integrationId, '5%'), []);
      // Erasure forgets the address for its own account only.
      await store.privacy.eraseFromWatches(second.accountId, 'jane@example.test');
      assert.deepEqual(await store.integrations.addressesOfMember(integrationId, '501'), [
        'jane@example.test',
      ]);
      await store.privacy.eraseFromWatches(first.accountId, 'jane@example.test');
      assert.deepEqual(await store.integrations.addressesOfMember(integrationId, '501'), []);
      await store.integrations.noteWatchMemberAddress(watch.id, '501', at, 'jane@example.test');
      await store.integrations.forgetWatchMember(integrationId, '501');
      assert.deepEqual(await store.integrations.addressesOfMember(integrationId, '501'), []);
    });

    it("keeps each integration's last campaign check for its account only, replaced by the next", async () => {
      const { accountId, integrationId } = await connectedIntegration(store, 'Checker');
      const other = await connectedIntegration(store, 'Other checker');
      const check = {
        campaignId: 'c1',
        title: 'Spring “sale”',
        audienceId: 'aud1',
        recipients: 3,
        byCategory: { valid: 1, risky: 1, invalid: 1, unverified: 0 },
        verified: 2,
        excluded: null,
        message: null,
      };
      const first = {
        accountId,
        integrationId,
        verifyUnverified: true,
        checkedAt: '2026-11-26T10:00:00.000Z',
        check,
      };
      assert.equal(await store.integrations.lastCampaignCheck(accountId, integrationId), null);
      await store.integrations.saveLastCampaignCheck(first);
      assert.deepEqual(await store.integrations.lastCampaignCheck(accountId, integrationId), first);
      assert.equal(await store.integrations.lastCampaignCheck(other.accountId, integrationId), null);
      assert.equal(await store.integrations.lastCampaignCheck(accountId, other.integrationId), null);
      // Another account's integration is never written to.
      await store.integrations.saveLastCampaignCheck({ ...first, accountId: other.accountId });
      assert.deepEqual(await store.integrations.lastCampaignCheck(accountId, integrationId), first);
      assert.equal(await store.integrations.lastCampaignCheck(other.accountId, integrationId), null);

      const second = {
        ...first,
        verifyUnverified: false,
        checkedAt: '2026-11-26T10:05:00.000Z',
        check: {
          ...check,
          excluded: { id: '41', name: 'Mailvet: Spring “sale” without invalid', members: 2 },
          message: 'The monthly verification quota ran out: 1 recipient was left unverified.',
        },
      };
      await store.integrations.saveLastCampaignCheck(second);
      assert.deepEqual(await store.integrations.lastCampaignCheck(accountId, integrationId), second);
      assert.equal(await store.integrations.deleteIntegration(accountId, integrationId), true);
      assert.equal(
        await store.integrations.lastCampaignCheck(accountId, integrationId),
        null,
        'gone with it',
      );
    });

    it('deletes an account with its keys, users and usage', async () => {
      const key = await newKey();
      const user = await store.users.createUser({
        accountId: key.accountId,
        email: `gone-${randomUUID()}@example.com`,
        passwordHash: 'h',
      });
      await store.chargeVerifications(ownerOf(key), '2025-09', 2, atMost(10));
      await store.deleteAccount(key.accountId);
      assert.equal(await store.findAccount(key.accountId), null);
      assert.equal(await store.findApiKeyById(key.id), null);
      assert.equal(await store.users.findUserById(user!.id), null);
      assert.deepEqual(await accountUsage(store, key, '2025-09'), { verifications: 0, bulkRequests: 0 });
    });

    it('refuses a second key with the same hash, and a key for an unknown account', async () => {
      const key = await newKey();
      await assert.rejects(createKey(store, { accountId: key.accountId, keyHash: key.keyHash }));
      await assert.rejects(createKey(store, { accountId: `missing-${randomUUID()}` }));
    });

    it('lists keys of one account oldest first, and all keys without one', async () => {
      const account = await store.createAccount({ name: 'Listing', plan: 'free' });
      const first = await newKey({ accountId: account.id, name: 'first' });
      await setTimeout(5); // creation instants have millisecond precision
      const second = await newKey({ accountId: account.id, name: 'second' });
      const elsewhere = await newKey();
      assert.deepEqual(await store.listApiKeys(account.id), [first, second]);
      const all = (await store.listApiKeys()).map((key) => key.id);
      for (const id of [first.id, second.id, elsewhere.id]) assert.ok(all.includes(id));
      assert.deepEqual(await store.listApiKeys(`none-${randomUUID()}`), []);
    });

    it('revokes a key at once, and only once', async () => {
      const key = await newKey();
      assert.equal(await store.revokeApiKey(key.id), true);
      const found = (await store.findApiKeyByHash(key.keyHash))?.key;
      assert.match(found?.revokedAt ?? '', ISO_INSTANT);
      assert.equal(await store.revokeApiKey(key.id), false);
      assert.equal((await store.findApiKeyByHash(key.keyHash))?.key.revokedAt, found?.revokedAt);
      assert.equal(await store.revokeApiKey(`missing-${randomUUID()}`), false);
      const listed = (await store.listApiKeys(key.accountId)).find((record) => record.id === key.id);
      assert.equal(listed?.revokedAt, found?.revokedAt);
    });

    it('starts every key and month at zero usage', async () => {
      const key = await newKey();
      assert.deepEqual(await accountUsage(store, key, '2025-01'), { verifications: 0, bulkRequests: 0 });
      assert.deepEqual(
        await accountUsage(store, { id: `missing-${randomUUID()}`, accountId: 'none' }, '2025-01'),
        {
          verifications: 0,
          bulkRequests: 0,
        },
      );
    });

    it('counts usage per key and per month, independently', async () => {
      const [one, two] = [await newKey(), await newKey()];
      assert.deepEqual(await store.chargeVerifications(ownerOf(one), '2025-01', 3, atMost(10)), {
        granted: 3,
        used: both(3),
      });
      assert.deepEqual(await store.chargeVerifications(ownerOf(one), '2025-02', 10, atMost(10)), {
        granted: 10,
        used: both(10),
      });
      assert.deepEqual(await store.chargeVerifications(ownerOf(two), '2025-01', 4, atMost(10)), {
        granted: 4,
        used: both(4),
      });
      assert.deepEqual(await store.chargeBulkRequest(ownerOf(one), '2025-02', atMost(5)), {
        granted: true,
        used: both(1),
      });
      assert.deepEqual(await accountUsage(store, one, '2025-01'), { verifications: 3, bulkRequests: 0 });
      assert.deepEqual(await accountUsage(store, one, '2025-02'), { verifications: 10, bulkRequests: 1 });
      assert.deepEqual(await accountUsage(store, two, '2025-01'), { verifications: 4, bulkRequests: 0 });
      assert.deepEqual(await accountUsage(store, two, '2025-02'), { verifications: 0, bulkRequests: 0 });
    });

    it('grants part of a charge at the cap, then nothing', async () => {
      const key = await newKey();
      assert.deepEqual(await store.chargeVerifications(ownerOf(key), '2025-03', 95, atMost(100)), {
        granted: 95,
        used: both(95),
      });
      assert.deepEqual(await store.chargeVerifications(ownerOf(key), '2025-03', 10, atMost(100)), {
        granted: 5,
        used: both(100),
      });
      assert.deepEqual(await store.chargeVerifications(ownerOf(key), '2025-03', 1, atMost(100)), {
        granted: 0,
        used: both(100),
      });
      // A lower limit (a plan changed mid-month) refuses without touching what was used.
      assert.deepEqual(await store.chargeVerifications(ownerOf(key), '2025-03', 1, atMost(40)), {
        granted: 0,
        used: both(100),
      });
      assert.deepEqual(await store.chargeVerifications(ownerOf(key), '2025-03', 3, atMost(102)), {
        granted: 2,
        used: both(102),
      });
    });

    it('charges against a quota beyond 32 bits', async () => {
      const key = await newKey();
      const limit = 2 ** 40;
      assert.deepEqual(await store.chargeVerifications(ownerOf(key), '2025-03', 3, atMost(limit)), {
        granted: 3,
        used: both(3),
      });
      assert.deepEqual(await store.chargeBulkRequest(ownerOf(key), '2025-03', atMost(limit)), {
        granted: true,
        used: both(1),
      });
    });

    it('grants nothing with a limit of 0 or a request of 0, and makes no usage', async () => {
      const key = await newKey();
      assert.deepEqual(await store.chargeVerifications(ownerOf(key), '2025-04', 5, atMost(0)), {
        granted: 0,
        used: both(0),
      });
      assert.deepEqual(await store.chargeVerifications(ownerOf(key), '2025-04', 0, atMost(10)), {
        granted: 0,
        used: both(0),
      });
      assert.deepEqual(await store.chargeBulkRequest(ownerOf(key), '2025-04', atMost(0)), {
        granted: false,
        used: both(0),
      });
      assert.deepEqual(await accountUsage(store, key, '2025-04'), { verifications: 0, bulkRequests: 0 });
    });

    it('rejects counts that are negative or not whole (a caller bug)', async () => {
      const key = await newKey();
      await assert.rejects(store.chargeVerifications(ownerOf(key), '2025-04', -1, atMost(10)), RangeError);
      await assert.rejects(store.chargeVerifications(ownerOf(key), '2025-04', 1.5, atMost(10)), RangeError);
      await assert.rejects(store.refundVerifications(ownerOf(key), '2025-04', Number.NaN), RangeError);
    });

    it('refunds verifications, never below zero', async () => {
      const key = await newKey();
      await store.chargeVerifications(ownerOf(key), '2025-05', 10, atMost(100));
      await store.refundVerifications(ownerOf(key), '2025-05', 3);
      assert.equal((await accountUsage(store, key, '2025-05')).verifications, 7);
      await store.refundVerifications(ownerOf(key), '2025-05', 0);
      assert.equal((await accountUsage(store, key, '2025-05')).verifications, 7);
      await store.refundVerifications(ownerOf(key), '2025-05', 50);
      assert.equal((await accountUsage(store, key, '2025-05')).verifications, 0);
      await store.refundVerifications(ownerOf(key), '2025-06', 5);
      assert.deepEqual(await accountUsage(store, key, '2025-06'), { verifications: 0, bulkRequests: 0 });
      // A refund frees room that the next charge may use.
      await store.chargeVerifications(ownerOf(key), '2025-05', 10, atMost(10));
      await store.refundVerifications(ownerOf(key), '2025-05', 4);
      assert.deepEqual(await store.chargeVerifications(ownerOf(key), '2025-05', 9, atMost(10)), {
        granted: 4,
        used: both(10),
      });
    });

    it('charges and refunds bulk requests one at a time, never below zero', async () => {
      const key = await newKey();
      assert.deepEqual(await store.chargeBulkRequest(ownerOf(key), '2025-07', atMost(2)), {
        granted: true,
        used: both(1),
      });
      assert.deepEqual(await store.chargeBulkRequest(ownerOf(key), '2025-07', atMost(2)), {
        granted: true,
        used: both(2),
      });
      assert.deepEqual(await store.chargeBulkRequest(ownerOf(key), '2025-07', atMost(2)), {
        granted: false,
        used: both(2),
      });
      await store.refundBulkRequest(ownerOf(key), '2025-07');
      assert.deepEqual(await store.chargeBulkRequest(ownerOf(key), '2025-07', atMost(2)), {
        granted: true,
        used: both(2),
      });
      for (let i = 0; i < 4; i++) await store.refundBulkRequest(ownerOf(key), '2025-07');
      await store.refundBulkRequest(ownerOf(key), '2025-08');
      assert.deepEqual(await accountUsage(store, key, '2025-07'), { verifications: 0, bulkRequests: 0 });
      assert.deepEqual(await accountUsage(store, key, '2025-08'), { verifications: 0, bulkRequests: 0 });
    });
  });

  storeConcurrencyContract(target);
}
