//! The JWT crate's cryptography, backed by `ring`: the one crypto library the
//! build already has (rustls uses it). Only verification: the gateway checks
//! access tokens and never signs one. Installed once per process.

use jsonwebtoken::crypto::{CryptoProvider, JwkUtils, JwtSigner, JwtVerifier};
use jsonwebtoken::errors::{ErrorKind, Result};
use jsonwebtoken::signature;
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, DecodingKeyKind, EncodingKey};
use ring::signature as sig;

/// A public key and the algorithm it verifies.
struct Verifier {
    algorithm: Algorithm,
    key: DecodingKey,
}

impl signature::Verifier<Vec<u8>> for Verifier {
    fn verify(&self, msg: &[u8], signature: &Vec<u8>) -> std::result::Result<(), signature::Error> {
        let rsa: Option<&'static sig::RsaParameters> = match self.algorithm {
            Algorithm::RS256 => Some(&sig::RSA_PKCS1_2048_8192_SHA256),
            Algorithm::RS384 => Some(&sig::RSA_PKCS1_2048_8192_SHA384),
            Algorithm::RS512 => Some(&sig::RSA_PKCS1_2048_8192_SHA512),
            Algorithm::PS256 => Some(&sig::RSA_PSS_2048_8192_SHA256),
            Algorithm::PS384 => Some(&sig::RSA_PSS_2048_8192_SHA384),
            Algorithm::PS512 => Some(&sig::RSA_PSS_2048_8192_SHA512),
            _ => None,
        };
        let ok = match (rsa, self.key.kind()) {
            (Some(params), DecodingKeyKind::RsaModulusExponent { n, e }) => {
                sig::RsaPublicKeyComponents { n, e }
                    .verify(params, msg, signature)
                    .is_ok()
            }
            (Some(params), DecodingKeyKind::SecretOrDer(der)) => {
                sig::UnparsedPublicKey::new(params, der)
                    .verify(msg, signature)
                    .is_ok()
            }
            (None, DecodingKeyKind::SecretOrDer(point)) => {
                let alg: &'static dyn sig::VerificationAlgorithm = match self.algorithm {
                    Algorithm::ES256 => &sig::ECDSA_P256_SHA256_FIXED,
                    Algorithm::ES384 => &sig::ECDSA_P384_SHA384_FIXED,
                    Algorithm::EdDSA => &sig::ED25519,
                    _ => return Err(signature::Error::new()),
                };
                sig::UnparsedPublicKey::new(alg, point)
                    .verify(msg, signature)
                    .is_ok()
            }
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            Err(signature::Error::new())
        }
    }
}

impl JwtVerifier for Verifier {
    fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
}

/// The family of keys `algorithm` verifies with.
pub(crate) fn family(algorithm: Algorithm) -> AlgorithmFamily {
    match algorithm {
        Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => AlgorithmFamily::Hmac,
        Algorithm::ES256 | Algorithm::ES384 => AlgorithmFamily::Ec,
        Algorithm::EdDSA => AlgorithmFamily::Ed,
        _ => AlgorithmFamily::Rsa,
    }
}

fn new_verifier(algorithm: &Algorithm, key: &DecodingKey) -> Result<Box<dyn JwtVerifier>> {
    // Symmetric keys are never accepted: a key set holds public keys, and an
    // `HS*` token checked against one would be forged with the public key.
    if family(*algorithm) == AlgorithmFamily::Hmac || key.family() != family(*algorithm) {
        return Err(ErrorKind::InvalidAlgorithm.into());
    }
    Ok(Box::new(Verifier {
        algorithm: *algorithm,
        key: key.clone(),
    }))
}

fn new_signer(_: &Algorithm, _: &EncodingKey) -> Result<Box<dyn JwtSigner>> {
    Err(ErrorKind::InvalidAlgorithm.into())
}

static PROVIDER: CryptoProvider = CryptoProvider {
    signer_factory: new_signer,
    verifier_factory: new_verifier,
    jwk_utils: JwkUtils {
        extract_rsa_public_key_components: |_| Err(ErrorKind::InvalidAlgorithm.into()),
        extract_ec_public_key_coordinates: |_, _| Err(ErrorKind::InvalidAlgorithm.into()),
        compute_digest: |data, hash| {
            use jsonwebtoken::jwk::ThumbprintHash;
            let alg = match hash {
                ThumbprintHash::SHA256 => &ring::digest::SHA256,
                ThumbprintHash::SHA384 => &ring::digest::SHA384,
                ThumbprintHash::SHA512 => &ring::digest::SHA512,
            };
            ring::digest::digest(alg, data).as_ref().to_vec()
        },
    },
};

/// Installs the ring-backed provider (once; later calls do nothing).
pub(crate) fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = PROVIDER.install_default();
    });
}
