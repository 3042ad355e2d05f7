/**
 * The revision of how source records become what channels read (`projectProperty`,
 * `projectLocation`, `projectOwner`, `publishedPlace` in projection.ts). A change there that moves
 * what a channel is shown of an unchanged source (a field added, a text worded otherwise) bumps
 * it: a worker that starts with a revision the database has not finished re-projects every
 * property for every channel, so records channels already hold catch up, each with a higher
 * `version` and its event (workflows/catalogue-reprojection.ts). A change that leaves every body as
 * it was needs none. `test/domain/projection-revisions.test.ts` holds each revision's digest of
 * the demo catalogue's projections: a projection that changes without a new revision fails there.
 */
export const PROJECTION_REVISION = 1;

/** Properties a re-projection visits per second when the operator sets no other rate. */
export const REPROJECTION_RATE_DEFAULT = 50;
