// The size of a page of any list a channel reads (docs/contract.md#limits): `limit` from 1 to
// PAGE_LIMIT_MAX items, PAGE_LIMIT_DEFAULT when the request names none.

export const PAGE_LIMIT_MAX = 500;
export const PAGE_LIMIT_DEFAULT = 100;
