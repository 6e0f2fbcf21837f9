/**
 * The composition root: the one place that picks adapters from configuration and wires them into
 * the verification core.
 */
import { CachedDnsResolver } from './adapters/dns/cached-resolver.ts';
import { NodeDnsResolver } from './adapters/dns/node-resolver.ts';
import { SystemClock } from './adapters/dns/system-clock.ts';
import { type OperatorListWarning, readOperatorLists } from './adapters/lists/operator-lists.ts';
import { type Config, ConfigError } from './config.ts';
import { createListChecker } from './verification/checks/lists.ts';
import { SkippingProber } from './verification/checks/smtp-skipped.ts';
import { Verifier } from './verification/pipeline.ts';

/** Builds the verifier for this configuration. Operator list problems are written to `warn`. */
export async function createVerifier(
  config: Config,
  warn: (message: string) => void = (message) => process.stderr.write(`mailvet: ${message}\n`),
): Promise<Verifier> {
  const clock = new SystemClock();
  let resolver: NodeDnsResolver;
  try {
    resolver = new NodeDnsResolver({
      servers: config.MAILVET_DNS_SERVERS.length > 0 ? config.MAILVET_DNS_SERVERS : undefined,
      timeoutMs: config.MAILVET_DNS_TIMEOUT_MS,
      tries: config.MAILVET_DNS_TRIES,
    });
  } catch (error) {
    throw new ConfigError([`MAILVET_DNS_SERVERS: ${error instanceof Error ? error.message : String(error)}`]);
  }
  const operator = await readOperatorLists({
    allowFile: config.MAILVET_DISPOSABLE_ALLOW_FILE,
    denyFile: config.MAILVET_DISPOSABLE_DENY_FILE,
  });
  // A configured file that cannot be read is a configuration error; a bad line is only a warning.
  const unreadable = operator.warnings.filter((warning) => warning.problem === 'unreadable');
  if (unreadable.length > 0) throw new ConfigError(unreadable.map(formatWarning));
  for (const warning of operator.warnings) warn(formatWarning(warning));
  return new Verifier({
    dns: new CachedDnsResolver(resolver, clock),
    // The SMTP probe lands with its own issue; until then no result claims a probe it did not make.
    prober: new SkippingProber(),
    lists: createListChecker({ allowDomains: operator.allowDomains, denyDomains: operator.denyDomains }),
    clock,
  });
}

function formatWarning(warning: OperatorListWarning): string {
  const where = warning.line === null ? warning.file : `${warning.file}:${warning.line}`;
  return `operator list ${where}: ${warning.message}`;
}
