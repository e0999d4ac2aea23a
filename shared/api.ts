// THE contract between the window and the engine. One map of method name -> request and
// response; both transports (Electron IPC via preload, and web mode over HTTP on 127.0.0.1)
// carry exactly these shapes, so the renderer cannot tell which one it has (GitHub Desktop's
// typed IPC map, Tad's transport-agnostic client).
//
// This file is the one import path; the parts behind it:
//   shared/api/shapes.ts    what the methods take and return
//   shared/api/map.ts       the map (ApiMap), the handlers, the client, the preload bridge
//   shared/api/wire.ts      both transports' constants (IPC channels; HTTP paths, headers, limits, statuses)
//   shared/api/validate.ts  one request validator per method (apiSpec), validateRequest
//
// Adding a method: add it to `ApiMap` (its shapes in shapes.ts), give it a request validator in
// `apiSpec` (the compiler refuses the map without one), implement it in main/app/service.ts.
// Nothing else changes: preload, the IPC handlers and the web server are generic over this file.
export * from './api/shapes';
export * from './api/map';
export * from './api/wire';
export * from './api/validate';
export * from './api/packed';
