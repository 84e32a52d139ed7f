/** An SSH public key as the domain knows it: a person's key or a repository's deploy key. */
export type SshKey = {
  readonly id: string;
  /** OpenSSH's `SHA256:…`. */
  readonly fingerprint: string;
  readonly title: string;
  /** `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`… */
  readonly keyType: string;
  /** `TYPE BASE64`, comment left out. */
  readonly publicKey: string;
  readonly readOnly: boolean;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly owner: SshKeyOwner;
};

/** Whose a key is: one person's, or one repository's deploy slot (added by someone). */
export type SshKeyOwner =
  | { readonly kind: 'user'; readonly userId: string }
  | { readonly kind: 'deploy'; readonly repoId: string; readonly addedBy: string | null };

/** What a client sends to add a key (Gitea's `CreateKeyOption`). */
export type NewSshKey = {
  readonly title: string;
  readonly key: string;
  readonly readOnly?: boolean | undefined;
};
