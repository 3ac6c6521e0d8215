// Image work weighed by its pixels: a decode holds memory in proportion to the pixels it unpacks
// (about 6 bytes a pixel while sharp converts), so "two jobs at once" alone let two 40-megapixel
// images be decoded together (issue 34 #8: three at once peaked near 2 GB). A job runs when both its
// pixels fit in what is left of the budget and a job slot is free; jobs start in the order they came
// (a large one is not starved by small ones behind it). A job larger than the whole budget runs alone.

interface Waiting {
  pixels: number;
  start: () => void;
}

export class PixelBudget {
  private used = 0;
  private running = 0;
  private readonly waiting: Waiting[] = [];

  constructor(
    /** Pixels decoded at once at most (one image up to this size runs alone). */
    readonly capacity: number,
    /** Jobs at once at most, whatever their size. */
    readonly maxJobs: number,
  ) {}

  /** Runs `job`, which decodes about `pixels` pixels, when the budget allows. */
  async run<T>(pixels: number, job: () => Promise<T>): Promise<T> {
    const weight = Math.min(Math.max(0, pixels), this.capacity);
    await new Promise<void>((resolve) => {
      this.waiting.push({ pixels: weight, start: resolve });
      this.next();
    });
    try {
      return await job();
    } finally {
      this.used -= weight;
      this.running -= 1;
      this.next();
    }
  }

  /** Starts the waiting jobs at the head of the line that fit. */
  private next(): void {
    for (let head = this.waiting[0]; head; head = this.waiting[0]) {
      if (this.running >= this.maxJobs || this.used + head.pixels > this.capacity) return;
      this.waiting.shift();
      this.used += head.pixels;
      this.running += 1;
      head.start();
    }
  }

  /** Jobs running and waiting now (for tests and diagnostics). */
  get load(): { running: number; waiting: number; pixels: number } {
    return { running: this.running, waiting: this.waiting.length, pixels: this.used };
  }
}
