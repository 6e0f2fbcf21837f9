/**
 * A deterministic mixed corpus of addresses for the offline benchmark: mostly ordinary addresses at
 * popular and company domains, with the shares of typos, role accounts, disposable domains, invalid
 * syntax, IDN and quoted forms a real list carries.
 */

import { mulberry32 } from './random.ts';

const FIRST = [
  'john',
  'jane',
  'maria',
  'wei',
  'olga',
  'ahmed',
  'lucas',
  'emma',
  'noah',
  'sofia',
  'li',
  'raj',
  'anna',
];
const LAST = [
  'smith',
  'doe',
  'garcia',
  'chen',
  'ivanova',
  'khan',
  'silva',
  'muller',
  'rossi',
  'kim',
  'patel',
];
const POPULAR = [
  'gmail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'aol.com',
  'icloud.com',
  'gmx.de',
  'mail.ru',
];
const TYPOS = [
  'gmial.com',
  'gmail.co',
  'hotmial.com',
  'yaho.com',
  'outlok.com',
  'gamil.com',
  'hotmail.con',
  'yahoo.cm',
];
const ROLES = ['info', 'support', 'sales', 'admin', 'no-reply', 'billing', 'hr', 'contact'];
const DISPOSABLE = [
  'mailinator.com',
  'yopmail.com',
  'guerrillamail.com',
  '10minutemail.com',
  'sub.mailinator.com',
];
const INVALID = [
  'plainaddress',
  'a@@b.com',
  'john..doe@example.com',
  '@example.com',
  'john@',
  'john@-example.com',
  'x@a_b.com',
];
const SPECIAL = [
  '"john smith"@example.com',
  'jörg@bücher.de',
  'user@[192.0.2.1]',
  'josé@exámple.es',
  'user+tag@example.org',
];

/** `count` addresses; company domains number `companyDomains` so caches see realistic reuse. */
export function mixedCorpus(count: number, seed = 42, companyDomains = 2000): string[] {
  const next = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const person = () =>
    `${pick(FIRST)}${pick(['.', '_', ''])}${pick(LAST)}${next() < 0.3 ? Math.floor(next() * 100) : ''}`;
  const addresses: string[] = [];
  for (let i = 0; i < count; i++) {
    const roll = next();
    if (roll < 0.45) addresses.push(`${person()}@${pick(POPULAR)}`);
    else if (roll < 0.75) addresses.push(`${person()}@company${Math.floor(next() * companyDomains)}.com`);
    else if (roll < 0.82) addresses.push(`${person()}@${pick(TYPOS)}`);
    else if (roll < 0.88) addresses.push(`${pick(ROLES)}@company${Math.floor(next() * companyDomains)}.com`);
    else if (roll < 0.92) addresses.push(`${person()}@${pick(DISPOSABLE)}`);
    else if (roll < 0.97) addresses.push(pick(INVALID));
    else addresses.push(pick(SPECIAL));
  }
  return addresses;
}
