import type {
  AccountProvider,
  IssuedVirtualAccount,
  VirtualAccountRequest,
} from "../../src/providers/account-provider.js";

/**
 * A provider that passes everything to another (the embedded bank, as the composition hands it
 * over): tests subclass it and change only the operation they are about.
 */
export class WrappedBank implements AccountProvider {
  constructor(protected readonly inner: AccountProvider) {}

  get bankName(): string {
    return this.inner.bankName;
  }

  createVirtualAccount(request: VirtualAccountRequest): Promise<IssuedVirtualAccount> {
    return this.inner.createVirtualAccount(request);
  }

  findByReference(accountReference: string): Promise<IssuedVirtualAccount | undefined> {
    return this.inner.findByReference(accountReference);
  }

  setAccountEnabled(accountNumber: string, enabled: boolean): Promise<void> {
    return this.inner.setAccountEnabled(accountNumber, enabled);
  }
}

/** A provider whose create is `create`, everything else the embedded bank's. */
export function bankWith(
  inner: AccountProvider,
  create: (request: VirtualAccountRequest) => Promise<IssuedVirtualAccount>,
): AccountProvider {
  return new (class extends WrappedBank {
    override createVirtualAccount(request: VirtualAccountRequest) {
      return create(request);
    }
  })(inner);
}
