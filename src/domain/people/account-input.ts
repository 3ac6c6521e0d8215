// The input of each account action of the public site (log in, register, ask for and choose a new
// password, change profile and settings), one zod schema per action. Faces parse with
// schema-fields.ts's `parse` and word the issues in their own style.
import { z } from 'zod';
import { USERNAME_PATTERN } from './accounts.js';
import { ATTRIBUTE } from '../schema-fields.js';
import { MIN_PASSWORD_LENGTH } from './users.js';

export const MAX_PASSWORD_LENGTH = 255;

const text = (max: number) => z.string().trim().min(1).max(max);
const blankIsAbsent = (value: unknown) => (value === '' ? undefined : value);
const email = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .refine(
    (value) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value),
    `The ${ATTRIBUTE} must be a valid email address.`,
  );
const password = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `The ${ATTRIBUTE} must be at least ${MIN_PASSWORD_LENGTH} characters.`)
  .max(MAX_PASSWORD_LENGTH);
/** A public name for author pages: lower case, 3 to 32 letters, digits, - or _. */
export const username = z
  .string()
  .trim()
  .toLowerCase()
  .refine(
    (value) => USERNAME_PATTERN.test(value),
    `The ${ATTRIBUTE} must be 3 to 32 lower-case letters, digits, - or _.`,
  );
const confirmed = <T extends { password?: string; password_confirmation?: unknown }>(input: T) =>
  !input.password || input.password === input.password_confirmation;
const confirmation = { message: 'The password confirmation does not match.', path: ['password'] };

export const loginInput = z.object({
  email: text(255),
  password: z.string().min(1).max(MAX_PASSWORD_LENGTH),
});

export const registrationInput = z
  .object({
    name: text(255),
    email,
    username: z.preprocess(blankIsAbsent, username.optional()),
    password,
    password_confirmation: z.unknown().optional(),
  })
  .refine(confirmed, confirmation);

export const passwordForgotInput = z.object({ email });

export const passwordResetInput = z
  .object({ password, password_confirmation: z.unknown().optional() })
  .refine(confirmed, confirmation);

export const profileInput = z.object({ name: text(255), username });

export const settingsInput = z
  .object({
    email,
    current_password: z.string().max(MAX_PASSWORD_LENGTH).optional(),
    password: z.preprocess(blankIsAbsent, password.optional()),
    password_confirmation: z.unknown().optional(),
  })
  .refine(confirmed, confirmation);
