/**
 * English messages for zod's functional build (`zod/mini`), which has none of its own until told:
 * imported for this effect by every module that parses with it. The configuration and the plans
 * file use the functional build because the chained one (`zod`) is twenty times its size in the
 * bundle every start loads and compiles. Import `* as z from 'zod/mini'` where it is used, never
 * re-exported as one object: a namespace passed around whole keeps all of zod in the bundle.
 */
import { en } from 'zod/locales';
import { config } from 'zod/mini';

config(en());
