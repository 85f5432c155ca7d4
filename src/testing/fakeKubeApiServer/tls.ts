import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import {
  bitString,
  boolean,
  explicit,
  integer,
  namedBits,
  octetString,
  oid,
  sequence,
  set,
  time,
  tlv,
  utf8String,
} from './der.js';
import type { CertificateAndKey } from './types.js';

/**
 * Certificates made with node:crypto alone (ECDSA P-256, SHA-256): a CA, a server certificate
 * for 127.0.0.1/::1/localhost and optionally a client certificate (CN `kube-rx-test`, O
 * `system:masters`), all signed by the CA. No openssl, no dependency.
 */
export interface TlsMaterial {
  caPem: string;
  server: CertificateAndKey;
  client?: CertificateAndKey;
}

const ECDSA_WITH_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));
const CN = '2.5.4.3';
const O = '2.5.4.10';

interface Subject {
  cn: string;
  o?: string;
}

interface Issuer {
  name: Buffer;
  key: KeyObject;
  keyId: Buffer;
}

function name(subject: Subject): Buffer {
  const rdns = [set(sequence(oid(CN), utf8String(subject.cn)))];
  if (subject.o !== undefined) rdns.unshift(set(sequence(oid(O), utf8String(subject.o))));
  return sequence(...rdns);
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical
    ? sequence(oid(id), boolean(true), octetString(value))
    : sequence(oid(id), octetString(value));
}

function ipAddress(ip: string): Buffer {
  if (ip === '::1') return tlv(0x87, Buffer.from([...new Array<number>(15).fill(0), 1]));
  return tlv(0x87, Buffer.from(ip.split('.').map(Number)));
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

type Profile = 'ca' | 'server' | 'client';

/** The subject key identifier of a public key: the SHA-1 of its DER SubjectPublicKeyInfo. */
function keyIdOf(spki: Buffer): Buffer {
  return createHash('sha1').update(spki).digest();
}

function spkiOf(publicKey: KeyObject): Buffer {
  return publicKey.export({ type: 'spki', format: 'der' });
}

/** A DER certificate for `subject` and `publicKey`, signed by `issuer` (the CA signs itself). */
function certificate(
  subject: Subject,
  publicKey: KeyObject,
  profile: Profile,
  issuer: Issuer,
): Buffer {
  const spki = spkiOf(publicKey);
  const keyId = keyIdOf(spki);
  const now = Date.now();
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x01;
  const extensions: Buffer[] = [
    extension('2.5.29.19', true, profile === 'ca' ? sequence(boolean(true)) : sequence()),
    extension('2.5.29.15', true, namedBits(profile === 'ca' ? [0, 5, 6] : [0])),
    extension('2.5.29.14', false, octetString(keyId)),
    extension('2.5.29.35', false, sequence(tlv(0x80, issuer.keyId))),
  ];
  if (profile === 'server') {
    extensions.push(extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'))));
    const san = sequence(
      ipAddress('127.0.0.1'),
      ipAddress('::1'),
      tlv(0x82, Buffer.from('localhost', 'ascii')),
    );
    extensions.push(extension('2.5.29.17', false, san));
  } else if (profile === 'client') {
    extensions.push(extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.2'))));
  }
  const tbs = sequence(
    explicit(0, integer(2)),
    integer(serial),
    ECDSA_WITH_SHA256,
    issuer.name,
    sequence(time(new Date(now - 3_600_000)), time(new Date(now + 365 * 86_400_000))),
    name(subject),
    spki,
    explicit(3, sequence(...extensions)),
  );
  const signature = sign('sha256', tbs, issuer.key);
  return sequence(tbs, ECDSA_WITH_SHA256, bitString(signature));
}

function keyPair(): { publicKey: KeyObject; privateKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

function keyPem(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** Makes a CA and the certificates it signs (a few milliseconds). */
export function makeTlsMaterial(withClient: boolean): TlsMaterial {
  const caSubject = { cn: 'kube-rx-fake-ca' };
  const caKeys = keyPair();
  const issuer: Issuer = {
    name: name(caSubject),
    key: caKeys.privateKey,
    keyId: keyIdOf(spkiOf(caKeys.publicKey)),
  };
  const ca = certificate(caSubject, caKeys.publicKey, 'ca', issuer);

  const serverKeys = keyPair();
  const server = certificate({ cn: 'kube-apiserver' }, serverKeys.publicKey, 'server', issuer);
  const material: TlsMaterial = {
    caPem: pem('CERTIFICATE', ca),
    server: { cert: pem('CERTIFICATE', server), key: keyPem(serverKeys.privateKey) },
  };
  if (withClient) {
    const clientKeys = keyPair();
    const subject = { cn: 'kube-rx-test', o: 'system:masters' };
    const client = certificate(subject, clientKeys.publicKey, 'client', issuer);
    material.client = { cert: pem('CERTIFICATE', client), key: keyPem(clientKeys.privateKey) };
  }
  return material;
}
