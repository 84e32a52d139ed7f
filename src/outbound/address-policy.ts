/**
 * Which destinations an outbound request may reach. `admitsAddress` judges the IP address the
 * socket is about to connect to; `admitsName` lets an operator admit a host by name whatever it
 * resolves to (Gitea's allowlist has such rules). `HostAllowlist` (lib/host-allowlist.ts) is one.
 */
export type AddressPolicy = {
  admitsName(hostname: string): boolean;
  admitsAddress(address: string): boolean;
};
