declare module 'fastify' {
  interface FastifyContextConfig {
    /** GET requests to routes carrying this flag are metered by bot protection. */
    metered?: boolean;
  }
}

/** Route options of the expensive pages (commits, history) that bot protection meters. */
export const METERED = { config: { metered: true } } as const;
