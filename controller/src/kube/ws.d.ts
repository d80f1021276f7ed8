// @kubernetes/client-node's types reference `ws` (through isomorphic-ws) for its exec/attach websockets,
// which the controller never uses; without @types/ws (not a dependency) the compiler needs this stub of
// the two names those types mention.
declare module 'ws' {
  class WebSocket {}
  namespace WebSocket {
    type ClientOptions = Record<string, unknown>;
    type WebSocket = unknown;
  }
  export = WebSocket;
}
