import { describe, expect, it } from "vitest";
import { kinds } from "./support.js";

const PW = ["password"];

describe("passwords stated or assigned are rejected", () => {
  it.each([
    "my password is hunter2",
    "The wifi password is Correct-Horse-42",
    "password: Tr0ub4dor&3",
    "Password = swordfish",
    "DB_PASSWORD=s3cr3t_Pr0d!",
    "PGPASSWORD=Zq81mmx",
    "pwd=Qz8!mv2p",
    "pw: bluebird77",
    "login admin / pass: Welcome2024!",
    "passwd = 'n0t-s0-s3cret'",
    "--password=Kx9!aa12",
    '{"user": "deploy", "password": "Xk9#mLq2"}',
    "the admin password for the staging box is Staging#2024",
    "Password (prod): 9vTq!r4e",
    "my email password is swordfish, same as always",
    "the NAS root password? it's Owl&Moon55",
    "I changed the Netflix password to Blu3Whale! yesterday",
    "changed the wifi password to sunflower.",
    "hunter2 is my github password",
    "creds: admin/hunter2",
    "Mi contraseña es Gato2024",
    "Mon mot de passe est soleil42",
    "Das Passwort lautet Sommer!2024",
    "senha: Rio@2024",
    "Wi-Fi: GuestNet / key: sunshine2023",
  ])("%s", (text) => {
    expect(kinds(text)).toEqual(PW);
  });
});

describe("PINs and access codes", () => {
  it("stated PINs (4-8 digits) and door codes are passwords", () => {
    expect(kinds("The PIN is 4821")).toEqual(PW);
    expect(kinds("my bank card PIN: 0937")).toEqual(PW);
    expect(kinds("Door code is 4417#")).toEqual(PW);
    expect(kinds("PIN for the safe: 739184")).toEqual(PW);
    expect(kinds("PIN 1234")).toEqual(PW);
    expect(kinds("ALARM CODE 1-9-8-4")).toEqual(PW);
  });
  it("talk about PINs, and Indian postal PIN codes, pass", () => {
    expect(kinds("Don't share your PIN with anyone")).toEqual([]);
    expect(kinds("The PIN must be 4 to 6 digits")).toEqual([]);
    expect(kinds("PIN is required at checkout")).toEqual([]);
    expect(kinds("PIN code 560001, Bangalore")).toEqual([]);
  });
});

describe("credentials in URLs and headers", () => {
  it("a URL with user:password@ is a password", () => {
    expect(kinds("postgres://app:Sup3r@db.internal:5432/x")).toEqual(PW);
    expect(kinds("postgres://user:pass@host/db")).toEqual(PW);
    expect(kinds("redis://:Rz7f2kQp9@cache:6379")).toEqual(PW);
    expect(kinds("Authorization: Basic YWRtaW46aHVudGVyMg==")).toEqual(PW);
  });
  it("URL templates and variables pass", () => {
    expect(kinds("postgres://user:${PGPASSWORD}@db:5432/app")).toEqual([]);
    expect(kinds("postgres://<user>:<password>@<host>:5432/<db>")).toEqual([]);
    expect(kinds("https://admin.example.com/login")).toEqual([]);
  });
});

describe("sentences that only talk about passwords pass", () => {
  it.each([
    "reset your password via the portal",
    "password rotation policy is 90 days",
    "we store passwords hashed with argon2",
    "the password field must be at least 12 characters",
    "I forgot my password again",
    "The password is stored in 1Password under 'Prod DB'",
    "Her password is too short for the new policy",
    "The password is required for every login",
    "The admin password was rotated last week",
    "Change your password to something stronger",
    "reset your password to regain access",
    "password: ********",
    "password: <your-password-here>",
    "DB_PASSWORD=${DB_PASSWORD} is injected at deploy time",
    "export DB_PASSWORD=$(cat /run/secrets/db)",
    "password: {{ vault_db_password }}",
    "password: check with IT",
    "The password reset link expires in 24 hours",
    "Passwordless login via magic links is enabled",
    "Das Passwort ist abgelaufen",
    "Pass the salt",
    "the password is different for each environment",
    "The password must be 12 characters long",
  ])("%s", (text) => {
    expect(kinds(text)).toEqual([]);
  });
});

// Issue 28, item 6: Chinese, Japanese and Korean put no space before a label and attach particles to it.
describe("CJK and Korean labels inside a sentence", () => {
  it.each([
    "我的密码是hunter2",
    "我的密码是 hunter2。",
    "我的密碼是hunter2",
    "WiFi密码：hunter2",
    "WiFi密码:12345678",
    "密码hunter2，别告诉别人",
    "把密码改成Hunter2024了",
    "私のパスワードはhunter2です",
    "パスワード：hunter2",
    "パスワードは「hunter2」です",
    "パスワードをhunter2に変更しました",
    "제 비밀번호는 hunter2 입니다",
    "제 비밀번호는hunter2입니다",
    "비밀번호: hunter2",
    "비밀번호를 hunter2로 바꿨어요",
    "와이파이 비번은 sunflower 이에요",
  ])("%s is refused", (text) => {
    expect(kinds(text)).toContain("password");
  });

  it.each([
    "我忘记了我的密码",
    "密码是在设置里改的",
    "密码和AppleID一样",
    "密码至少8位",
    "パスワードを忘れました",
    "パスワードはAppleIDと同じです",
    "パスワードはhttps://vault.example.comで確認してください",
    "비밀번호는 8자 이상이어야 합니다",
    "비밀번호는 SMS로 받았어요",
    "비밀번호를 잊어버렸어요",
    "密码管理器用的是1Password",
    "密码是MySQL的root密码，问运维",
    "パスワードはLINEで送ります",
    "비밀번호는 Gmail 계정과 같아요",
  ])("%s passes", (text) => {
    expect(kinds(text)).toEqual([]);
  });
});
