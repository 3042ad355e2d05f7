/** A refusal of the operator CLI: printed as one line on stderr, exit code 2, nothing changed. */
export class AdminError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminError';
  }
}
