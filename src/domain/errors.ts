// Errors the domain raises for the HTTP layer (or the CLI) to translate. They carry no HTTP details.

/** Input that is well-formed but breaks a rule, keyed by field like a validation error. */
export class InputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'InputError';
  }
}

export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}
