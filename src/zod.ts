/**
 * zod, as the configuration and the plans file are parsed with it: its functional build
 * (`zod/mini`), whose code is a twentieth of the chained build's that every start would load and
 * compile, with English messages (the functional build has none of its own until told so).
 */
import { en } from 'zod/locales';
import * as z from 'zod/mini';

z.config(en());

export { z };
