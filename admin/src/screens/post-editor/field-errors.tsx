// A field's errors as the API returned them (422): shown under the field, which points to them.

/** The field's error text, or nothing. */
export function FieldError({ errors, name }: { errors: Record<string, string[]>; name: string }) {
  return errors[name]?.length ? (
    <p id={`error-${name}`} class="field-error">
      {errors[name].join(' ')}
    </p>
  ) : null;
}

/** The attributes of a field with errors: invalid, described by them. */
export const described = (errors: Record<string, string[]>, name: string) =>
  errors[name]?.length ? { 'aria-invalid': true, 'aria-describedby': `error-${name}` } : {};
