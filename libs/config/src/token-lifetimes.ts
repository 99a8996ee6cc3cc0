/**
 * Clock skew allowed between our clocks and an identity provider's, on `exp`, `nbf` and `iat`. Shared
 * by the verifier (libs/auth) and the revocation stream's retention (libs/messaging), which must agree.
 */
export const TOKEN_CLOCK_SKEW_SECONDS = 30;
