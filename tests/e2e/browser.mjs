// Debian's Chromium, headless, with the flags this machine's closed network needs: what every
// scenario runs in.
import { chromium } from "playwright-core";

export const launch = () => chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
