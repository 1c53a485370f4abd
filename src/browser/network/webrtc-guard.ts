/**
 * WebRTC sends UDP (STUN, TURN, peer-to-peer) straight from the browser's
 * network service, around any proxy: it is the one way out of a run that the
 * guard proxy cannot see, and Chromium's `--force-webrtc-ip-handling-policy`
 * switch is not honoured by every build (Debian's Chromium ignores it). So a
 * run's pages get no WebRTC at all: this script runs before any page script in
 * every frame and removes the constructors for good (non-configurable, so a
 * page cannot put them back).
 */
export const disableWebRtcScript = `(() => {
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCIceTransport', 'RTCDataChannel']) {
    try {
      Object.defineProperty(globalThis, name, { value: undefined, writable: false, configurable: false })
    } catch {}
  }
})()`
