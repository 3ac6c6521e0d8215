// Request validation of API v1 routes that parse their own input: the schema's findings in the spec's
// Laravel-style messages (src/http/validation-messages.ts), as a 422 envelope. The field builders
// live with the domain's schemas (src/domain/schema-fields.ts).
import type { z } from 'zod';
import { formatIssues } from '../../http/validation-messages.js';
import { validationFailed } from './envelope.js';

export {
  boolean,
  integer,
  integerArray,
  isoDateTime,
  optional,
  requiredString,
  translatable,
} from '../../domain/schema-fields.js';
export { attributeName, formatIssues } from '../../http/validation-messages.js';

/** Parses input with the schema, or throws the 422 validation error. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw validationFailed(formatIssues(result.error.issues));
  return result.data;
}
