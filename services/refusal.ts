/**
 * A request a service refuses for a reason its caller can fix (an unknown name, a limit reached),
 * with nothing changed. The CLI prints the message and exits 2; the HTTP interfaces use
 * `ProblemError` (domain/problems.ts) for refusals that have a problem code.
 */
export class Refusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Refusal';
  }
}
