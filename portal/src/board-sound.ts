// The board's optional sound for a new critical item (issue 32): off by default, switched on per browser
// (localStorage), a short two-tone made with Web Audio (no sound file to ship). The browser lets a page play
// only after a user gesture, so the context is created when the user switches the sound on.
const KEY = 'faultline.board.sound';
let context: AudioContext | null = null;

export const soundWanted = (): boolean => localStorage.getItem(KEY) === 'on';

export function setSoundWanted(on: boolean): void {
  localStorage.setItem(KEY, on ? 'on' : 'off');
  if (on) {
    context ??= new AudioContext();
    void context.resume();
  }
}

export function playAlert(): void {
  context ??= new AudioContext();
  const ctx = context;
  void ctx.resume();
  const gain = ctx.createGain();
  gain.gain.value = 0.15;
  gain.connect(ctx.destination);
  [880, 660].forEach((hz, i) => {
    const tone = ctx.createOscillator();
    tone.frequency.value = hz;
    tone.connect(gain);
    tone.start(ctx.currentTime + i * 0.25);
    tone.stop(ctx.currentTime + i * 0.25 + 0.2);
  });
}
