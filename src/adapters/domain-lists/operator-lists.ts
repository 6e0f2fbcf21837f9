/**
 * Operator allow and deny files for the disposable check (`MAILVET_DISPOSABLE_ALLOW_FILE`,
 * `MAILVET_DISPOSABLE_DENY_FILE`): one domain per line, `#` starts a comment, blank lines are
 * skipped. A bad line or an unreadable file is reported as a warning, never thrown, so the caller
 * decides whether to log it or refuse to start.
 */
import { readFile } from 'node:fs/promises';
import { domainToASCII } from 'node:url';

/** Where the operator's files are; an absent path means no file. */
export interface OperatorListFiles {
  allowFile?: string | undefined;
  denyFile?: string | undefined;
}

/** A line that was not used, or a file that could not be read (`line` is null then). */
export interface OperatorListWarning {
  file: string;
  line: number | null;
  problem: 'unreadable' | 'invalid_domain';
  message: string;
}

/** The operator's entries, as lower-case ASCII domains, with what was skipped. */
export interface OperatorLists {
  allowDomains: string[];
  denyDomains: string[];
  warnings: OperatorListWarning[];
}

/** Reads both files; a missing or unreadable file gives a warning and no entries. */
export async function readOperatorLists(files: OperatorListFiles): Promise<OperatorLists> {
  const [allow, deny] = await Promise.all([readDomainFile(files.allowFile), readDomainFile(files.denyFile)]);
  return {
    allowDomains: allow.domains,
    denyDomains: deny.domains,
    warnings: [...allow.warnings, ...deny.warnings],
  };
}

/** One parsed file. */
export interface DomainFile {
  domains: string[];
  warnings: OperatorListWarning[];
}

async function readDomainFile(path: string | undefined): Promise<DomainFile> {
  if (path === undefined || path === '') return { domains: [], warnings: [] };
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    return {
      domains: [],
      warnings: [
        { file: path, line: null, problem: 'unreadable', message: `cannot read the file (${code})` },
      ],
    };
  }
  return parseDomainList(text, path);
}

/** Parses a domain list: one domain per line, `#` comments, blank lines; IDNs become A-labels. */
export function parseDomainList(text: string, file: string): DomainFile {
  const domains: string[] = [];
  const warnings: OperatorListWarning[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  for (const [index, raw] of lines.entries()) {
    const hash = raw.indexOf('#');
    const entry = (hash === -1 ? raw : raw.slice(0, hash)).trim();
    if (entry === '') continue;
    const domain = toDomain(entry);
    if (domain === null) {
      warnings.push({
        file,
        line: index + 1,
        problem: 'invalid_domain',
        message: `not a domain name: ${JSON.stringify(entry.slice(0, 100))}`,
      });
    } else {
      domains.push(domain);
    }
  }
  return { domains, warnings };
}

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** The entry as a lower-case ASCII domain, or null; `*.example.com`, `.example.com` and a root dot are accepted. */
function toDomain(entry: string): string | null {
  let name = entry.toLowerCase();
  if (name.startsWith('*.')) name = name.slice(2);
  else if (name.startsWith('.')) name = name.slice(1);
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name === '' || /[\s@/:%]/.test(name)) return null;
  const ascii = domainToASCII(name);
  if (ascii === '' || ascii.length > 253) return null;
  return ascii.split('.').every((label) => LABEL.test(label)) ? ascii : null;
}
