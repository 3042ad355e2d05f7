import type { HostPage } from '../page.ts';
import { connectPage } from './connect.ts';
import { listingPropertyPage, listingsOverviewPage } from './listings.ts';
import { ownersPage } from './owners.ts';
import { localePage, signOutPage } from './session.ts';

/** Every page of a host session, mounted under `/host` in this order (see api/host/README.md). */
export const HOST_PAGES: readonly HostPage[] = [
  ownersPage,
  connectPage,
  listingsOverviewPage,
  listingPropertyPage,
  localePage,
  signOutPage,
];
