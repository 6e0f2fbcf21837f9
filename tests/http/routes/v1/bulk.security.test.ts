/**
 * POST /api/v1/verify/bulk, security: the shared 401 cases (no key, other schemes, malformed,
 * unknown and revoked keys, auth before the body).
 */
import { describe } from 'node:test';
import { authCases } from '../../auth-cases.ts';
import { BULK } from '../../expect.ts';

describe('shared auth cases', () => authCases(BULK, { emails: ['jane@multi-mx.test'] }));
