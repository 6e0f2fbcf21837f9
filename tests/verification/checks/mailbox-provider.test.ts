/**
 * The mail provider table (src/verification/data/mailbox-providers.json) and its matcher: the file
 * loads, every entry is well-formed, real MX host names of each kind are recognised, and names
 * that merely look alike are not. The metrics' provider label reads the same table.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { mxProvider, OTHER_PROVIDER } from '../../../src/observability/mx-provider.ts';
import {
  isProviderKind,
  MAILBOX_PROVIDERS,
  providerOfHost,
  providerOfMxHosts,
} from '../../../src/verification/checks/mailbox-provider.ts';

const DATA_FILE = new URL('../../../src/verification/data/mailbox-providers.json', import.meta.url);

interface RawEntry {
  id: unknown;
  name: unknown;
  kind: unknown;
  mx_suffixes: unknown;
  note: unknown;
}

const LABEL = /^(?:\*|[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)$/;

describe('the provider data file', () => {
  const raw = JSON.parse(readFileSync(DATA_FILE, 'utf8')) as { _comment: unknown; providers: RawEntry[] };

  it('loads, explains itself, and holds the providers the evidence promises', () => {
    assert.ok(Array.isArray(raw._comment) && raw._comment.length > 0);
    assert.equal(MAILBOX_PROVIDERS.length, raw.providers.length);
    const ids = new Set(MAILBOX_PROVIDERS.map((provider) => provider.id));
    for (const id of [
      'google',
      'microsoft',
      'yahoo',
      'apple',
      'zoho',
      'proofpoint',
      'mimecast',
      'barracuda',
    ]) {
      assert.ok(ids.has(id), id);
    }
    for (const id of ['fastmail', 'proton', 'yandex', 'mailru', 'gmx-webde', 'ovh', 'amazon-ses', 'cisco']) {
      assert.ok(ids.has(id), id);
    }
  });

  it('every entry is well-formed: id, name, kind, suffixes and a note', () => {
    const ids = new Set<string>();
    const owners = new Map<string, string>();
    for (const entry of raw.providers) {
      const where = JSON.stringify(entry.id);
      assert.equal(typeof entry.id, 'string', where);
      const id = entry.id as string;
      assert.match(id, /^[a-z0-9]+(?:-[a-z0-9]+)*$/, where);
      assert.ok(!ids.has(id), `${where} twice`);
      ids.add(id);
      assert.ok(typeof entry.name === 'string' && entry.name.trim().length > 0, `${where} name`);
      assert.ok(
        typeof entry.kind === 'string' && isProviderKind(entry.kind),
        `${where} kind ${String(entry.kind)}`,
      );
      assert.ok(typeof entry.note === 'string' && entry.note.length > 10, `${where} note`);
      assert.ok(Array.isArray(entry.mx_suffixes) && entry.mx_suffixes.length > 0, `${where} mx_suffixes`);
      for (const suffix of entry.mx_suffixes as unknown[]) {
        assert.equal(typeof suffix, 'string', `${where} suffix`);
        const labels = (suffix as string).split('.');
        assert.ok(labels.length >= 2, `${where}: ${String(suffix)} names a whole TLD`);
        assert.ok(
          labels.every((label) => LABEL.test(label)),
          `${where}: ${String(suffix)}`,
        );
        // A wildcard never stands for the registrable name or the TLD: anyone could own those.
        assert.ok(!labels.slice(-2).includes('*'), `${where}: ${String(suffix)}`);
        const owner = owners.get(suffix as string);
        assert.equal(owner, undefined, `${String(suffix)} is claimed by ${owner} and ${id}`);
        owners.set(suffix as string, id);
      }
    }
  });
});

describe('providerOfHost', () => {
  const cases: Array<[host: string, id: string | null]> = [
    ['aspmx.l.google.com', 'google'],
    ['ALT1.ASPMX.L.GOOGLE.COM.', 'google'],
    ['gmail-smtp-in.l.google.com', 'google'],
    ['aspmx2.googlemail.com', 'google'],
    ['contoso-com.mail.protection.outlook.com', 'microsoft'],
    ['hotmail-com.olc.protection.outlook.com', 'microsoft'],
    ['contoso-com.a-v1.mx.microsoft', 'microsoft'],
    ['mta5.am0.yahoodns.net', 'yahoo'],
    ['mx01.mail.icloud.com', 'apple'],
    ['mx.zoho.eu', 'zoho'],
    ['in1-smtp.messagingengine.com', 'fastmail'],
    ['mail.protonmail.ch', 'proton'],
    ['mx.yandex.net', 'yandex'],
    ['mxs.mail.ru', 'mailru'],
    ['mx00.gmx.net', 'gmx-webde'],
    ['mx-ha01.web.de', 'gmx-webde'],
    ['mx1.mail.ovh.net', 'ovh'],
    ['inbound-smtp.eu-west-1.amazonaws.com', 'amazon-ses'],
    ['mx0a-00123456.pphosted.com', 'proofpoint'],
    ['eu-smtp-inbound-1.mimecast.com', 'mimecast'],
    ['d123456a.ess.barracudanetworks.com', 'barracuda'],
    ['mx1.hc1234-56.iphmx.com', 'cisco'],
    // Look-alikes and shared hosting names are nobody's.
    ['notgoogle.com', null],
    ['aspmx.l.google.com.attacker.test', null],
    ['ec2-198-51-100-7.compute-1.amazonaws.com', null],
    ['inbound-smtp.amazonaws.com', null],
    ['mx.example.com', null],
    ['', null],
  ];
  for (const [host, id] of cases) {
    it(`${JSON.stringify(host)} → ${id ?? 'none'}`, () => {
      assert.equal(providerOfHost(host)?.id ?? null, id);
      assert.equal(mxProvider(host), id ?? OTHER_PROVIDER, 'the metrics label reads the same table');
    });
  }

  it('tells a security gateway from a mailbox host', () => {
    assert.equal(providerOfHost('mx0b-001.pphosted.com')?.kind, 'security_gateway');
    assert.equal(providerOfHost('us-smtp-inbound-2.mimecast.com')?.kind, 'security_gateway');
    assert.equal(providerOfHost('aspmx.l.google.com')?.kind, 'mailbox_host');
    assert.equal(providerOfHost('aspmx.l.google.com')?.name, 'Google (Gmail, Google Workspace)');
  });

  it('the metrics label is `other` for no host at all', () => {
    assert.equal(mxProvider(null), OTHER_PROVIDER);
    assert.equal(mxProvider(undefined), OTHER_PROVIDER);
  });
});

describe('providerOfMxHosts', () => {
  it('takes the first host in preference order that is recognised', () => {
    const provider = providerOfMxHosts([
      { exchange: 'mx.own-server.test', priority: 5 },
      { exchange: 'mx0a-1.pphosted.com', priority: 10 },
      { exchange: 'aspmx.l.google.com', priority: 20 },
    ]);
    assert.equal(provider?.id, 'proofpoint');
    assert.equal(providerOfMxHosts([{ exchange: 'mx.own-server.test', priority: 5 }]), null);
    assert.equal(providerOfMxHosts([]), null);
  });
});
