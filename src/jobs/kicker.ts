/**
 * A pass of work run now rather than at its job's next interval (a payout just held, a mail just
 * queued): one pass at a time in this process; a kick during a pass runs one more after it.
 */
export class Kicker {
  private running: Promise<unknown> | undefined;
  private again = false;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {}

  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass()
      .catch((error: unknown) => this.onError(error))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Waits for the passes in flight (a graceful shutdown, tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }
}
