const mem = new WebAssembly.Memory({ initial: 100 });
const chunk = Buffer.alloc(5500, 1);
let t = performance.now();
for (let i = 0; i < 21000; i++) new Uint8Array(mem.buffer, 4096, 8192).set(chunk);
console.log('set from Buffer', performance.now() - t);
const big = Buffer.alloc(65536, 1);
t = performance.now();
for (let i = 0; i < 2000; i++) new Uint8Array(mem.buffer, 4096, 65536).set(big);
console.log('set 64k', performance.now() - t);
