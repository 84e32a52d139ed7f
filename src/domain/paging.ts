/** One page of a list: at most `limit` items, after skipping `offset`. */
export type Page = { readonly limit: number; readonly offset: number };
