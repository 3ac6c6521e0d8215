// The languages Folio's interface speaks (issue 41): the admin panel's and the mails'.
import { z } from 'zod';

export const INTERFACE_LANGUAGES = ['en', 'zh_TW', 'zh_CN', 'ja'] as const;

/** A person's choice of language; null: not chosen (the panel guesses from the browser). */
export const languageInput = z.object({ language: z.enum(INTERFACE_LANGUAGES).nullable() }).strict();
