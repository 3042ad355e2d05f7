import { Refusal } from '../services/refusal.ts';

/** A refusal of the operator CLI's own (its arguments): printed as one line on stderr, exit code 2. */
export class AdminError extends Refusal {
  constructor(message: string) {
    super(message);
    this.name = 'AdminError';
  }
}
