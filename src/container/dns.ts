/**
 * The resolver of this configuration (MAILVET_DNS_SERVERS or the system's), shared by the
 * verifier's lookups and the host check.
 */
import { NodeDnsResolver } from '../adapters/dns/node-resolver.ts';
import { type Config, ConfigError } from '../config.ts';

/** A resolver on the configured servers; a server list it cannot use is a configuration error. */
export function configuredResolver(config: Config): NodeDnsResolver {
  try {
    return new NodeDnsResolver({
      servers: config.MAILVET_DNS_SERVERS.length > 0 ? config.MAILVET_DNS_SERVERS : undefined,
      timeoutMs: config.MAILVET_DNS_TIMEOUT_MS,
      tries: config.MAILVET_DNS_TRIES,
    });
  } catch (error) {
    throw new ConfigError([`MAILVET_DNS_SERVERS: ${error instanceof Error ? error.message : String(error)}`]);
  }
}
